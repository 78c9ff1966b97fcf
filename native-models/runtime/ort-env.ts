// onnxruntime-node 1.30's native library ships Microsoft's telemetry client: on Linux it records
// events in ~/.cache/Microsoft/DeveloperTools/.onnxruntime/onnxruntime.db (or under
// XDG_CACHE_HOME) and its debug log /tmp/mat-debug-<pid>.log plus a .ses file in TMPDIR.
// The Node binding offers no switch (initOrtOnce takes only a log level); the library reads
// ORT_DISABLE_TELEMETRY from the C environment when ORT initialises, at the first session.

/**
 * Turns ORT's telemetry off for this process. Call from the main thread before any thread
 * creates a session: a worker thread's process.env is a private copy that the native getenv
 * never sees, so setting it inside a worker does nothing.
 */
export function disableOrtTelemetry(): void {
  process.env.ORT_DISABLE_TELEMETRY = '1';
}
