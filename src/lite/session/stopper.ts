/**
 * A stop flag a loop can race its awaits against. `Promise.race([work, stopped])` in a loop
 * leaks: every race leaves a reaction on the long-lived `stopped` promise that keeps the race's
 * result (a request chunk, a delivered batch) reachable until the session ends. Here each
 * race registers a listener and removes it as soon as it settles.
 */
export const STOP = Symbol("stop");

export class Stopper {
  private done = false;
  private readonly listeners = new Set<() => void>();

  get stopped(): boolean {
    return this.done;
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    for (const cb of [...this.listeners]) cb();
    this.listeners.clear();
  }

  /** Settles like `work`, or with STOP as soon as `stop()` is called. */
  race<T>(work: Promise<T>): Promise<T | typeof STOP> {
    if (this.done) {
      work.catch(() => undefined);
      return Promise.resolve(STOP);
    }
    return new Promise((resolve, reject) => {
      const onStop = (): void => resolve(STOP);
      this.listeners.add(onStop);
      work.then(
        (v) => {
          this.listeners.delete(onStop);
          resolve(v);
        },
        (e: unknown) => {
          this.listeners.delete(onStop);
          reject(e);
        },
      );
    });
  }
}
