/** Metrics: A10–A12 of protocol.md §2.2 (account, basin and stream metric sets). */
import { clientError, clientFail } from "../errors.js";
import type {
  AccountMetricSet,
  BasinMetricSet,
  MetricSetResponse,
  MetricsQuery,
  StreamMetricSet,
} from "../metric-types.js";
import { checkName } from "../rules/names.js";
import type { Caller } from "./caller.js";
import { query, seg } from "./endpoints.js";

export class MetricsApi {
  /** @internal made by the client tree, not by its users */
  constructor(
    private readonly caller: Caller,
    private readonly base: string,
  ) {}

  async accountMetrics(q: MetricsQuery<AccountMetricSet>): Promise<MetricSetResponse> {
    return this.get("/metrics", q, "account-metrics");
  }

  async basinMetrics(basin: string, q: MetricsQuery<BasinMetricSet>): Promise<MetricSetResponse> {
    checkName("basin", basin, clientFail("usage"));
    return this.get(`/metrics/${seg(basin)}`, q, "basin-metrics");
  }

  async streamMetrics(basin: string, stream: string, q: MetricsQuery<StreamMetricSet>): Promise<MetricSetResponse> {
    checkName("basin", basin, clientFail("usage"));
    checkName("stream", stream, clientFail("usage"));
    return this.get(`/metrics/${seg(basin)}/${seg(stream)}`, q, "stream-metrics");
  }

  private async get(path: string, q: MetricsQuery, op: string): Promise<MetricSetResponse> {
    const qs = query({ set: q.set, start: q.start, end: q.end, interval: q.interval });
    const res = await this.caller.json<MetricSetResponse>({
      method: "GET",
      url: `${this.base}${path}${qs}`,
      idempotent: true,
    });
    if (!res.data || !Array.isArray(res.data.values))
      throw clientError("protocol", `${op} response has no \`values\` array`);
    return res.data;
  }
}
