/** The delaying TCP proxy of the benches (test/bench/lib/delay-proxy.mjs), for tests: a database "far away". */
export { startDelayProxy } from "../bench/lib/delay-proxy.mjs";
