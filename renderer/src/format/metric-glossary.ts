/**
 * One line per metric the engine writes, shown on hover wherever a metric is named (Dashboard
 * chart titles) and copied by hand into README.md's "Metrics" section: one text, so the two agree.
 * Keys are the names as stored (electron/engine/algorithms: context.ts trainMetrics, loops/metrics.ts).
 */
export const metricGlossary: Readonly<Record<string, string>> = {
  reward: 'Mean checklist reward of the rollouts trained on this step (0–1; partial credit per checklist item).',
  'reward/act': "Mean reward credited to the agent's own actions (act turns), averaged over tasks.",
  'reward/rehearse': "Mean reward credited to the policy's imagined observations (rehearse turns), averaged over tasks.",
  success: 'Fraction of real-environment rollouts this step that solved their task (training tasks, so optimistic).',
  'eval/success': 'Held-out success: fraction of unseen tasks solved greedily, measured before the first step (step 0), every evalEvery steps and at the last.',
  'eval/score': 'Held-out mean checklist score (partial credit), measured with eval/success.',
  'eval/invalid_action_rate': 'Held-out fraction of actions that were not a valid tool call or answer.',
  'eval/env_failures': 'Held-out episodes whose environment failed (a tool server that did not start, crashed or hung), measured with eval/success, which counts them as failures; the run log names each.',
  loss: 'Total training loss of the last micro-batch (the sum of the loss/ terms).',
  'loss/pg': 'Policy-gradient (clipped surrogate) term: pushes up actions with positive advantage, down the rest.',
  'loss/sft': 'Supervised term: cross-entropy on demonstration tokens (SFT warm start).',
  'loss/wm': "World-model term: cross-entropy on observations, teaching the policy to predict the environment's replies.",
  'loss/kl': 'KL penalty term (klBeta × KL to the stage-start reference policy).',
  kl: 'KL divergence from the reference policy (the policy as the RL stage started); grows as the policy drifts.',
  entropy: "Mean per-token entropy of the policy's distribution; falling fast means it is becoming deterministic.",
  lr: 'Learning rate this step, after warm-up and the cosine or constant schedule.',
  grad_norm: 'Gradient norm before clipping (gradClip); spikes mean unstable updates.',
  clip_frac: 'Fraction of tokens whose probability ratio hit the PPO clip range (clipLow/clipHigh): how far updates were held back.',
  ratio_mean: "Mean ratio π_new/π_old over trained tokens; near 1 means the update stayed close to the policy that sampled.",
  format_error_rate: 'Fraction of rollouts with a malformed tool call or answer (not parseable); should fall early.',
  full_score_rate: 'Fraction of rollouts with full reward (every checklist item passed).',
  groups_with_signal: 'Fraction of task groups whose K rollouts scored differently; groups that all scored alike teach nothing.',
  redraws: 'Task groups without signal replaced this step by dynamic sampling.',
  memory_rate: 'Fraction of rollouts that used a rehearsal memory.',
  env_calls: 'Real environment tool calls this step (the cost rehearsal tries to save).',
  env_failures: 'Rollouts this step whose environment failed, not the policy (its tool server did not start, crashed or hung): each counts as a failure, one whose server never started scores 0, and the run log names the task and what failed.',
  gather_env_calls: 'Environment calls spent gathering demonstrations (counted once, on step 1).',
  sft_fixed_layout_rows: "SFT with a layout curriculum (sft.fixedLayoutSteps): rows of this step's batch shown in the fixed template rather than their varied layout.",
  sft_memories: "Memory-aware SFT (sft.memoryFraction): rows of this step's batch laid out behind a rehearsal memory.",
  tokens_generated: 'Tokens the policy generated this step, including discarded redraws.',
  tokens_per_s: 'Generation throughput: tokens generated per second of rollout wall time.',
  train_tokens: 'Tokens in the last training micro-batch.',
  turns: 'Mean turns per rollout.',
  step_ms: 'Wall time of the training update, in milliseconds.',
  'paw/lambda_mean': 'PaW: mean weight of the world-model loss on selected transitions.',
  'paw/selected': 'PaW: transitions selected for world-model training this step.',
  'paw/transitions': 'PaW: transitions seen this step.',
  'rwml/reward': "RWML: mean reward of the world model's predicted observations (similarity above threshold).",
  'rwml/similarity': 'RWML: mean similarity of predicted to real observations.',
  'rwml/rewarded': 'RWML: fraction of predictions rewarded.',
  'rwml/kept': 'RWML: transitions kept after dropping the easy ones.',
  'rwml/transitions': 'RWML: transitions sampled this step.',
};

/** The glossary line for a metric; a `loss/<term>` not listed still gets a generic one, anything else an honest blank. */
export function explainMetric(key: string): string {
  const known = metricGlossary[key];
  if (known) return known;
  if (key.startsWith('loss/')) return `Loss term "${key.slice(5)}" of the last micro-batch (part of loss).`;
  return '';
}
