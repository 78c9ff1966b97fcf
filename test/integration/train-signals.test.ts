// `envace train` stops gracefully on SIGTERM as on Ctrl+C (SIGINT): the run is cancelled at a step
// boundary, kept with its checkpoints, the command exits 1 naming `runs resume`, and the resume
// finishes the run. SIGTERM used to kill the process outright (exit 143), the run left `running`
// until the next owner of the home marked it interrupted.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastJson, runEnvace } from '../helpers/cli';
import { tempHome } from '../helpers/engine';
import { patience } from '../helpers/patience';

const bin = path.resolve(import.meta.dirname, '../../bin/envace.mjs');
const STEPS = 12;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** `envace train` on a tiny run, sent `signal` once it has passed step 2; its exit code and output. */
async function trainAndSignal(home: string, signal: NodeJS.Signals): Promise<{ code: number | null; killedBy: NodeJS.Signals | null; output: string }> {
  const config = path.join(home, 'run.json');
  const rollout = { k: 2, tasksPerStep: 1, maxTurns: 2, maxTokensPerTurn: 32, maxObservationTokens: 16, toolSchemas: 'none' };
  fs.writeFileSync(config, JSON.stringify({ env: 'retail', worldSize: 5, algo: 'envace', model: { preset: 'nano' }, seed: 1, provider: 'cpu', steps: STEPS, checkpointEvery: 1, rollout }));
  const child = spawn(process.execPath, [bin, 'train', '--home', home, '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let sent = false;
  const read = (d: Buffer) => {
    output += String(d);
    if (!sent && new RegExp(`step [2-9]/${STEPS}`).test(output)) {
      sent = true;
      child.kill(signal);
    }
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const [code, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
  return { code, killedBy, output };
}

describe('envace train on SIGTERM and SIGINT', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: cancelled at a step boundary, checkpoints kept, exit 1 with the resume command; the resume completes the run',
    async (signal) => {
      const home = tempHome(`envace-train-${signal.toLowerCase()}-`);
      dirs.push(home);
      const run = await trainAndSignal(home, signal);
      expect(run.killedBy, run.output).toBeNull();
      expect(run.code, run.output).toBe(1);
      expect(run.output).toContain(`${signal}: cancelling at the next step boundary`);
      const id = /run cancelled at step \d+ of 12; go on with: npx envace runs resume (\S+)/.exec(run.output)?.[1];
      expect(id, run.output).toBeDefined();
      const shown = lastJson((await runEnvace(home, 'runs', 'show', id!, '--json')).stdout) as { status: string; currentStep: number; checkpoints: Array<{ step: number }> };
      expect(shown.status).toBe('cancelled');
      expect(shown.currentStep).toBeLessThan(STEPS);
      expect(shown.checkpoints.at(-1)?.step).toBe(shown.currentStep);
      const resumed = await runEnvace(home, 'runs', 'resume', id!, '--json');
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(lastJson(resumed.stdout)).toMatchObject({ run: id, status: 'completed', step: STEPS });
    },
    patience(180_000),
  );
});
