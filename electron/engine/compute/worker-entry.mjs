// Development/CLI entry for the compute worker: registers tsx in this thread (loader hooks
// are per thread on Node 20) and then loads the TypeScript worker. Bundled builds point at
// the compiled worker instead.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
