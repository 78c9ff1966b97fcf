// The defaults forms start from, kept in the data home as settings.json: one small file, written
// whole (temp file, fsync, rename) so a crash mid-write leaves the old file or the new one.
import fs from 'node:fs';
import path from 'node:path';
import { builtInDefaults, ContractError, SettingsDefaults } from '../../contract';

/** The stored defaults; the built-in ones where there is no file yet. A file that does not parse is an error that says where. */
export function readSettings(file: string): SettingsDefaults {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return builtInDefaults;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ContractError('invalid_input', `${file} is not JSON (${(error as Error).message}): fix it or delete it to start from the built-in defaults`);
  }
  const parsed = SettingsDefaults.safeParse(json);
  if (!parsed.success) throw new ContractError('invalid_input', `${file} does not hold valid settings (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}): fix it or delete it`);
  return parsed.data;
}

export function writeSettings(file: string, defaults: SettingsDefaults): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(temp, 'w');
  try {
    fs.writeFileSync(fd, `${JSON.stringify(SettingsDefaults.parse(defaults), null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
}

/** Bytes under a folder (files only; links not followed); null when it cannot be read. */
export async function folderBytes(dir: string): Promise<number | null> {
  const walk = async (d: string): Promise<number> => {
    let total = 0;
    for (const entry of await fs.promises.readdir(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) total += await walk(full);
      else if (entry.isFile()) total += await fs.promises
        .stat(full)
        .then((s) => s.size)
        // A file removed while we walk (a finished episode's scratch) counts as gone.
        .catch(() => 0);
    }
    return total;
  };
  return walk(dir).catch(() => null);
}

/** Free bytes for this user on the disk holding `dir`; null where statfs is not there. */
export async function freeBytes(dir: string): Promise<number | null> {
  try {
    const s = await fs.promises.statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}
