/** What lite's HTTP layer reads of its metrics; absent with `--no-metrics`. */
import type { ServerStats } from "./prometheus.js";
import type { MetricsRecorder } from "./recorder.js";

export interface LiteMetrics {
  recorder: MetricsRecorder;
  stats: ServerStats;
}
