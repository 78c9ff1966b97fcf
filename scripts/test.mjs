// `npm test`: lint, type-check, build the renderer (the e2e tests serve it), then the whole
// vitest suite. Every stage runs; the exit code is the first failure's. The suite's plain
// summary line ("Tests: N passed, N failed, N skipped") is the last line printed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file);

const stages = [
  ['lint', [bin('eslint', 'bin/eslint.js'), '.']],
  ['typecheck (node side)', [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json', '--noEmit']],
  ['typecheck (renderer)', [bin('typescript', 'bin/tsc'), '-p', 'renderer/tsconfig.json', '--noEmit']],
  // The desktop bundles (main, preload, engine process, compute worker) and the renderer the e2e tests serve.
  ['build (electron-vite)', [bin('electron-vite', 'bin/electron-vite.js'), 'build', '--logLevel', 'warn']],
  ['tests', [bin('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)]],
];

let exitCode = 0;
for (const [name, args] of stages) {
  const started = Date.now();
  console.log(`\n▶ ${name}`);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR } });
  const code = result.status ?? 1;
  if (name !== 'tests') console.log(`${code === 0 ? '✓' : '✗'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (code !== 0 && exitCode === 0) exitCode = code;
}
process.exit(exitCode);
