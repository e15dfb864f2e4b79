/** One log line on stderr, prefixed `svc lite: ` (the server's and its command's; stdout is data). */
export function log(message: string): void {
  process.stderr.write(`svc lite: ${message}\n`);
}
