/**
 * Ctrl-C and SIGTERM for the data commands (docs/design/reliability.md, "Ctrl-C"): the first signal aborts
 * `signal` so the command can stop reading, drain and report; a second one ends the process at
 * once by re-raising the signal with no handler installed (the shell then sees 130 or 143),
 * so that nothing but main.ts calls process.exit.
 */
export class Interrupt {
  private readonly controller = new AbortController();
  private received: NodeJS.Signals | undefined;

  /** `onSecond` runs just before the process ends at once: it must say what it has to say synchronously. */
  constructor(
    private readonly onFirst?: (signal: NodeJS.Signals) => void,
    private readonly onSecond?: (signal: NodeJS.Signals) => void,
  ) {
    process.on("SIGINT", this.handle);
    process.on("SIGTERM", this.handle);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The first signal received, if any. */
  get which(): NodeJS.Signals | undefined {
    return this.received;
  }

  /** 130 for SIGINT, 143 for SIGTERM. */
  get exitCode(): number {
    return this.received === "SIGTERM" ? 143 : 130;
  }

  /** Aborts for a reason of the command's own (e.g. an idle timeout), not a signal. */
  abort(reason: string): void {
    this.controller.abort(reason);
  }

  dispose(): void {
    process.off("SIGINT", this.handle);
    process.off("SIGTERM", this.handle);
  }

  private readonly handle = (sig: NodeJS.Signals): void => {
    if (this.received === undefined) {
      this.received = sig;
      this.controller.abort(sig);
      this.onFirst?.(sig);
      return;
    }
    this.dispose();
    try {
      this.onSecond?.(sig);
    } finally {
      process.kill(process.pid, sig);
    }
  };
}
