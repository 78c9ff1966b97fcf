#!/usr/bin/env node
// The `envace` command. Runs the TypeScript sources through tsx, so a fresh `npm ci` is all
// it needs (no build step before the CLI works); tsx's compile cache is kept in the data home.
import { homeFromArgv, registerTsx, tsxCacheRoot } from './tsx-cache.mjs';

await registerTsx(tsxCacheRoot(homeFromArgv(process.argv)));
// Commands host the engine in this process (`serve` for as long as the browser is open).
const { logUnhandledRejections } = await import('../electron/engine/system/unhandled-rejections.ts');
logUnhandledRejections('envace');
const { main } = await import('../electron/cli/index.ts');
process.exitCode = await main(process.argv);
