/**
 * One resource per vitest run, however many projects the run has. vitest calls each
 * globalSetup once per project, in one process; the first call starts the resource, later
 * calls share it, and the teardown that comes last stops it. The count lives on globalThis
 * because vitest may load the setup module once per project.
 */
type Entry = { users: number; stop: () => Promise<void> };

const registry = ((globalThis as Record<symbol, unknown>)[Symbol.for("svc.test.run-shared")] ??= new Map()) as Map<
  string,
  Promise<Entry>
>;

export async function runShared(name: string, start: () => Promise<() => Promise<void>>): Promise<() => Promise<void>> {
  let pending = registry.get(name);
  if (pending === undefined) {
    pending = start().then((stop) => ({ users: 0, stop }));
    registry.set(name, pending);
  }
  const entry = await pending;
  entry.users += 1;
  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    registry.delete(name);
    await entry.stop();
  };
}
