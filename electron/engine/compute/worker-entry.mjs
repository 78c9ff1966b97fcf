// Development/CLI entry for the compute worker: registers tsx in this thread (loader hooks
// are per thread on Node 20) and then loads the TypeScript worker. Bundled builds point at
// the compiled worker instead. Under the `envace` command tsx's cache is the data home's
// (ENVACE_TSX_CACHE, bin/tsx-cache.mjs), or none where the home cannot hold one.
import { registerTsx } from '../../../bin/tsx-cache.mjs';

await registerTsx(process.env.TSX_DISABLE_CACHE ? null : process.env.ENVACE_TSX_CACHE);
await import('./worker.ts');
