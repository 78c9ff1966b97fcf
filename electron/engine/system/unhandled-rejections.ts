// Node's default for a rejected promise nobody awaits is to exit the process (since Node 15).
// In a process that hosts the engine that would end every run training in it, for what is at
// worst one lost request. The entry points that host an engine (Electron's utilityProcess, the
// `envace` command, and so `envace serve`) log it instead and carry on.

let installed = false;

function describe(reason: unknown): string {
  try {
    return reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
  } catch {
    return 'an unprintable value';
  }
}

/** Install once per process; later calls are no-ops, so entry points may each call it. */
export function logUnhandledRejections(label: string, log: (line: string) => void = (line) => console.error(line)): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    try {
      log(`[${label}] unhandled promise rejection (logged; the process keeps running): ${describe(reason)}`);
    } catch {
      // Logging is best effort: a closed stderr must not turn this back into an exit.
    }
  });
}
