import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout (or unpacked app) root: electron/cli/ sits two levels below it. */
export const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const rendererDist = path.join(appRoot, 'out', 'renderer');
