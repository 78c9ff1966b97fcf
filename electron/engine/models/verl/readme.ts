// README.md of a verl export: what is in the folder, the exact launch commands, how each of the run's
// knobs became a verl key (and which have none), and what was and was not verified.

import type { RunConfig } from '../../../contract';
import { VERL_FILES, type VerlRun } from './folder';
import type { TrainerLengths } from './trainer-config';

const DEFAULT_WORLD = { worldSize: 8, worldMode: 'fixed', taskMix: 'all' } as const;

/** The algorithm's part that verl's GRPO can carry, in words. */
function methodLines(algo: RunConfig['algo']): string[] {
  const note: Partial<Record<RunConfig['algo'], string>> = {
    'grpo-real': 'This run is plain GRPO in the real environment: verl trains the same objective on act tokens.',
    envace: 'This run is role-wise GRPO (EnvACE): verl trains only its real-environment act part (see below).',
    'envace-no-rehearse-loss': 'This run used rehearsed observations without training them; verl has no rehearsal, so it trains real-environment GRPO.',
    'envace-shared-baseline': 'This run is role-wise GRPO with one baseline; verl trains only its real-environment act part.',
    'sft+envace': 'This run chained SFT and role-wise GRPO; the starting weights are after both, and verl continues with real-environment GRPO.',
    sft: 'This run was SFT only; verl starts real-environment GRPO from its weights.',
    paw: 'This run co-trained a world model (PaW); verl has no world-model loss and trains real-environment GRPO only.',
    rwml: 'This run trained the Rehearse role (RWML); verl trains real-environment GRPO from its weights.',
    'rwml+grpo-real': 'This run chained RWML and GRPO; verl continues with real-environment GRPO.',
  };
  return [note[algo] ?? `This run's method (${algo}) maps onto verl's GRPO only for its real-environment act part.`];
}

export function verlReadme(v: VerlRun, dir: string, lengths: TrainerLengths, commit: string): string {
  const c = v.run.config;
  const r = c.rollout;
  const world = (Object.keys(DEFAULT_WORLD) as (keyof typeof DEFAULT_WORLD)[]).filter((k) => c[k] !== DEFAULT_WORLD[k]);
  const f = VERL_FILES;
  return [
    `# ${v.run.name} (${v.run.id}), step ${v.run.step}, for verl`,
    '',
    `Written by \`envace export --run ${v.run.id} --format verl\`: the run's starting weights, its \`${v.env.id}\` task set and a GRPO`,
    `config for verl's multi-turn agent loop (\`ToolAgentLoop\` with MCP tools). Checked against verl commit \`${commit}\`.`,
    '',
    '## Files',
    '',
    `- \`${f.model}/\` the checkpoint as a Hugging Face folder (the HF export; LoRA adapters merged).`,
    `- \`${f.train}\` (${v.tasks.train.length} tasks), \`${f.validation}\` (${v.tasks.heldout.length > 0 ? `${v.tasks.heldout.length} held-out tasks` : 'the train tasks: the env has no held-out split'}): verl's RL dataset schema; the prompt is the system block (env description and tools in the run's \`${r.toolSchemas}\` form) and the instruction, as envace rollouts open; \`extra_info\` holds env, \`task_id\` and seed.`,
    `- \`${f.servers}\` starts \`envace mcp serve --env ${v.env.id}\` over stdio; \`${f.tools}\` lists its tools with verl's \`MCPBaseTool\` (once per worker process). Over HTTP instead: start \`envace mcp serve --env ${v.env.id} --split train --port 0\` (with the same flags) and put \`{"mcpServers": {"envace": {"url": "<the printed URL, token included>"}}}\` in \`${f.servers}\` (not \`auth_token\`: verl takes that for SSE, which the server does not speak).`,
    `- \`${f.python}\`: the agent loop \`EnvaceToolAgentLoop\` (a \`ToolAgentLoop\`; registered by \`${f.agentLoops}\`) opens one episode per trajectory with \`start_task\`, adds the episode id to each call and closes it with \`finish\` (the last act's answer); it reaches the server with its own client, one per event loop with its session held open (verl's \`ClientManager\` shares one client across event loops, which over stdio fails or starts a server per call), and an episode id stays valid across sessions until \`finish\` or \`--episode-idle-s\`. \`compute_score\` is the reward function: the reward \`finish\` returned.`,
    `- \`${f.trainer}\`: verl's \`ppo_trainer\` defaults with this run's knobs.`,
    '',
    '## Launch',
    '',
    `On the training machine: verl installed from source at commit \`${commit.slice(0, 12)}\` (or another that has its MCP tools), with vLLM (or SGLang) and \`fastmcp\` 2.x; no verl release on PyPI will do: the wheels and sdists that have MCP tools (0.4.1 to 0.7.1) leave out \`verl/tools/utils/mcp_clients\` (it has no \`__init__.py\`), so \`MCPBaseTool\` cannot import, and 0.8.0 on have no MCP tools. Also`,
    "the workbench's `envace` command on PATH",
    "(`npm install -g` of the workbench, or `npm link` in a checkout; or edit the command in",
    `\`${f.servers}\`${v.home ? `; \`--home ${v.home}\` there is this machine's data home, needed only for registered MCP envs` : ''}). Paths in the configs are absolute`,
    `(\`${dir}\`); after moving the folder, pass them as overrides or edit them.`,
    '',
    '```sh',
    `cd ${JSON.stringify(dir)}`,
    'PYTHONPATH="$PWD:$PYTHONPATH" python3 -m verl.trainer.main_ppo --config-path="$PWD" --config-name=envace_grpo',
    '# more GPUs: trainer.n_gpus_per_node=8 actor_rollout_ref.rollout.tensor_model_parallel_size=2; SGLang: actor_rollout_ref.rollout.name=sglang',
    `# the env server alone: envace mcp serve --env ${v.env.id} --port 0   (then call start_task / finish by hand)`,
    '```',
    '',
    '## How the run maps onto verl',
    '',
    ...methodLines(c.algo),
    '',
    '| envace knob | value | verl key |',
    '| --- | --- | --- |',
    `| rollout.k (group size) | ${r.k} | actor_rollout_ref.rollout.n |`,
    `| rollout.tasksPerStep | ${r.tasksPerStep} | data.train_batch_size, actor.ppo_mini_batch_size |`,
    `| steps (RL stage) | ${c.steps} | trainer.total_training_steps |`,
    `| rollout.maxTurns | ${r.maxTurns} | rollout.multi_turn.max_assistant_turns |`,
    `| rollout.maxTokensPerTurn, maxObservationTokens | ${r.maxTokensPerTurn}, ${r.maxObservationTokens} | data.max_response_length = ${lengths.maxResponseLength} for the whole trajectory; multi_turn.max_tool_response_length = ${lengths.maxToolResponseChars} characters (verl cuts by characters, about 4 a token) |`,
    `| (prompt) | longest ${lengths.maxPromptLength - lengths.firstObservationTokens} tokens | data.max_prompt_length = ${lengths.maxPromptLength}, room for a first observation: ${lengths.firstObservationTokens} tokens${lengths.firstObservationTokens === 0 ? ' (raise it, within the context, for envs whose start_task returns one)' : ''} |`,
    `| temperature, topP | ${r.temperature}, ${r.topP} | rollout.temperature, rollout.top_p |`,
    `| optim (RL stage) lr, warm-up, floor, schedule | see ${f.trainer} | actor.optim.lr, lr_warmup_steps, min_lr_ratio, lr_scheduler_type |`,
    `| loss.clipLow / clipHigh / dualClip | ${c.loss.clipLow} / ${c.loss.clipHigh} / ${c.loss.dualClip} | actor.clip_ratio_low / clip_ratio_high / clip_ratio_c |`,
    `| loss.aggregation | ${c.loss.aggregation} | actor.loss_agg_mode (constant = seq-mean-token-sum-norm) |`,
    `| loss.stdNormalize | ${c.loss.stdNormalize} | algorithm.norm_adv_by_std_in_grpo |`,
    `| loss.klBeta, klEstimator | ${c.loss.klBeta}, ${c.loss.klEstimator} | actor.use_kl_loss, kl_loss_coef, kl_loss_type (k3 = low_var_kl) |`,
    `| optim.ppoEpochs, gradClip, weightDecay | ${c.optim.ppoEpochs}, ${c.optim.gradClip}, ${c.optim.weightDecay} | actor.ppo_epochs, actor.grad_clip, actor.optim.weight_decay |`,
    ...(Object.keys(v.envOptions ?? {}).length > 0
      ? [`| world (worldSize, worldMode, taskMix, seed) | ${Object.entries(v.envOptions!).map(([k, val]) => `${k}=${JSON.stringify(val)}`).join(', ')} | \`--env-option\` flags of \`envace mcp serve\` in ${f.servers}: the served tasks are the parquet's |`]
      : []),
    `| seed | ${c.seed} | data.seed, actor.data_loader_seed, fsdp seeds; each episode resets with it (extra_info.seed) |`,
    `| checkpointEvery, checkpointKeepLast, evalEvery | ${c.checkpointEvery}, ${c.checkpointKeepLast}, ${c.evalEvery} | trainer.save_freq, max_actor_ckpt_to_keep, test_freq |`,
    '',
    'What does not map (yet):',
    '',
    "- **Role-wise GRPO.** verl's GRPO has one role: the act tokens the model generated (tool responses are masked out). The Rehearse role — observations the policy writes itself, trained under their own baseline — has no counterpart: there is no rehearsal rollout mode in verl's agent loop. The EnvACE paper's code is a verl fork that adds it; this export does not.",
    `- **Baseline.** verl's GRPO baseline is the mean reward of a task's ${r.k} rollouts (our \`per-rollout\`); this run's \`${c.loss.baseline}\`${c.loss.baseline === 'pooled-per-output' ? ' weights rollouts by their number of acts, which verl does not' : ' is the same'}.`,
    `- Dynamic sampling${r.dynamicSampling ? ' (on in this run)' : ''}, test-time rehearsal and memories, PaW's and RWML's world-model losses, SFT stages and LoRA training (the weights are merged) are not carried.`,
    `- Rollouts of one task share its seed; ours derive one per rollout. The checklist's call budget is \`envace mcp serve\`'s default, not this run's \`callBudget\` (${r.callBudget}).`,
    ...(world.length > 0 && Object.keys(v.envOptions ?? {}).length === 0
      ? [`- This run's world options (${world.map((k) => `${k} = ${c[k]}`).join(', ')}) have no counterpart in ${v.env.id}, here as in the run: it has no world options.`]
      : []),
    '- Tool calls the hermes parser cannot read never reach the env (ours count them as format errors); tasks that bring their own tools (BFCL) are not offered, since verl fixes the tool list when the loop starts.',
    '',
    '## Verified and not',
    '',
    `- Verified (in the workbench's tests): every key of \`${f.trainer}\` and \`${f.tools}\` exists in verl's config at commit \`${commit.slice(0, 12)}\`; the parquet files read back with a parquet reader as verl's dataset expects them; \`compute_score\` imports without verl and scores a recorded \`finish\` result; the agent loop's own logic (one episode, ids added, episode tools kept from the model, finish with the last answer) runs over stand-ins for the verl classes it uses.`,
    `- Verified with verl's own MCP code at that commit (its tool registry, \`MCPBaseTool\`, \`ClientManager\`) and fastmcp 2.14.7, against \`envace mcp serve\`: six trajectories in two agent-loop worker steps, three at a time, each building its agent loop (verl lists the tools in a temporary event loop it then closes), each finishing its own episode with the gold calls at reward 1, over stdio with fastmcp's \`keep_alive\` on and off and over HTTP; over HTTP verl's own call path (a new session per call) also plays an episode from \`start_task\` to \`finish\`.`,
    "- Not verified: a training run in verl (none was possible where this was written: verl's agent loop generates through a rollout server, vLLM, SGLang or TensorRT-LLM, none of which runs there, and verl needs torch 2 with Ray and tensordict), verl's `ToolAgentLoop` itself around this agent loop (its LLM side was a stand-in that makes the calls), the hermes parsing of this model's tool calls, and vLLM/SGLang serving this architecture.",
    '',
  ].join('\n');
}
