import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real `envace` command with ENVACE_HOME set; a non-zero exit is a result, not a throw. */
export async function runEnvace(home: string, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: { ...process.env, ENVACE_HOME: home } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The JSON object a `--json` command prints on its last line. */
export const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);
