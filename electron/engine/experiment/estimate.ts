/**
 * A rough wall-time estimate of a suite, to size its budgets and to print before it starts. From
 * the bench throughputs pre-flight uses (BENCH: train-step and batch-16 decode tokens/s on 2 cores)
 * with every rollout using its whole turn budget, demonstrations half their cap, a prompt a quarter
 * of the context (64 tokens without tool schemas), plus a fixed setup per run and per evaluation
 * (loading and compiling the model).
 */
import { preset } from '../../../native-models/presets';
import { BENCH } from '../runs/preflight-training';
import { robustnessCells } from '../algorithms/robustness';
import { planSuite } from './plan';
import { REHEARSING, type Suite, rwmlSplit } from './suite';

/**
 * Setup seconds per run (worker start, tokenizer, session compile) and per evaluation (checkpoint
 * load), and for reading a run's figures back with its reality checks. Not measured one by one: the
 * previous design's quick (16 runs, 44 evaluations) took 8 min on a quiet machine in all, which these
 * formulas fill with the training and decoding alone — larger setup figures would not fit it.
 */
const SETUP_RUN_S = 4;
const SETUP_EVAL_S = 1;
const FIGURES_S = 2;
/**
 * Wall time with other work on both cores over wall time on a quiet machine: the previous design's
 * quick took 16 min busy and 8.4 min quiet (README "The side-by-side experiment").
 */
export const BUSY_FACTOR = 1.9;

export interface SuiteEstimate {
  /** Seconds on a quiet machine, by part. */
  sft: number;
  rl: number;
  evals: number;
  setup: number;
  idleMinutes: number;
  busyMinutes: number;
}

export function estimateSuite(suite: Suite): SuiteEstimate {
  const out = { sft: 0, rl: 0, evals: 0, setup: 0 };
  for (const seed of planSuite(suite)) {
    const env = suite.envs.find((e) => e.env === seed.env)!;
    const { train, decode } = BENCH[env.preset];
    const ctx = preset(env.preset).maxSeqLen;
    const r = { k: 4, tasksPerStep: 4, maxTurns: 8, maxTokensPerTurn: 96, maxObservationTokens: 256, toolSchemas: 'compact', ...env.rollout };
    // Without tool schemas a prompt is a system line and the instruction (≈ 50 tokens on retail); with them, about a quarter of the context.
    const prompt = r.toolSchemas === 'none' ? 64 : ctx / 4;
    const episode = Math.min(ctx, prompt + r.maxTurns * (r.maxTokensPerTurn + r.maxObservationTokens));
    const generated = (rehearse: boolean) => Math.min(ctx - prompt, r.maxTurns * (r.maxTokensPerTurn + (rehearse ? r.maxObservationTokens : 0)));
    const rows = r.k * r.tasksPerStep;
    const rlStep = (rehearse: boolean) => (rows * generated(rehearse)) / decode + (rows * episode) / train;
    const sftRows = env.sftRows ?? rows;
    out.sft += (seed.sft.steps * sftRows * (episode / 2)) / train;
    const G = 8;
    for (const m of seed.methods) {
      if (m.method === 'rwml') {
        const { rwmlSteps, policySteps } = rwmlSplit(suite);
        // World-model steps: real rollouts, G predictions per transition (probed about twice over), trained.
        const world = (rows * generated(false)) / decode + (2 * G * rows * r.maxObservationTokens) / decode + (G * rows * (episode / 2)) / train;
        out.rl += rwmlSteps * world + policySteps * rlStep(false);
      } else out.rl += m.steps * rlStep(REHEARSING.has(m.method));
    }
    for (const m of [seed.sft, ...seed.methods]) {
      out.setup += SETUP_RUN_S + FIGURES_S + m.evals.length * SETUP_EVAL_S;
      for (const e of m.evals) {
        const n = e.variant.testTime?.rehearsals ?? 0;
        out.evals += (m.evalLimit * (generated(false) + n * generated(true))) / decode;
        // A robustness evaluation adds a plain evaluation per filler cell and one after a single rehearsal.
        if (e.robustness) {
          const { plain, rehearsed } = robustnessCells(e.robustness);
          out.setup += (plain + rehearsed) * SETUP_EVAL_S;
          out.evals += (m.evalLimit * (plain * generated(false) + rehearsed * (generated(false) + generated(true)))) / decode;
        }
      }
    }
  }
  const idle = out.sft + out.rl + out.evals + out.setup;
  return { ...out, idleMinutes: idle / 60, busyMinutes: (idle * BUSY_FACTOR) / 60 };
}
