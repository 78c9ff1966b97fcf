// `npm start`: the desktop app where Electron's binary is installed; web mode otherwise.
// Electron 45 downloads its binary lazily on first use, which fails offline, so we look for
// it without triggering the download and fall back with one line saying why.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = path.join(root, 'node_modules', 'electron');

function electronBinary() {
  try {
    const relative = fs.readFileSync(path.join(electronDir, 'path.txt'), 'utf8').trim();
    const binary = path.join(electronDir, 'dist', relative);
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const forward = process.argv.slice(2);
const binary = electronBinary();
if (binary && !process.env.ENVACE_WEB) {
  run(process.execPath, [path.join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build']);
  const child = spawn(binary, [root, ...forward], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const index = path.join(root, 'out', 'renderer', 'index.html');
  const stale = !fs.existsSync(index) || newestMtime(path.join(root, 'renderer')) > fs.statSync(index).mtimeMs || newestMtime(path.join(root, 'electron', 'contract')) > fs.statSync(index).mtimeMs;
  if (stale) run(process.execPath, [path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn']);
  console.log(
    binary
      ? 'ENVACE_WEB is set: starting web mode instead of the desktop window.'
      : "Electron's binary is not installed (it downloads on first use and this machine could not fetch it): starting web mode instead.",
  );
  const child = spawn(process.execPath, [path.join(root, 'bin', 'envace.mjs'), 'serve', ...forward], { cwd: root, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 0));
}
