// The GRPO trainer config of a verl export: verl's own `ppo_trainer` defaults with the run's knobs laid
// over them. Only keys that verl's config schema has (test/fixtures/verl/ lists them with the verl commit
// they were read from) are written, so Hydra never refuses one; what has no verl key is said in the README.

import type { RunConfig } from '../../../contract';
import type { YamlValue } from './yaml';

/** The agent loop the export registers (envace_verl.py); the dataset rows name it too. */
export const AGENT_LOOP_NAME = 'envace_tool_agent';

export interface TrainerPaths {
  dir: string;
  trainFile: string;
  valFile: string;
  modelDir: string;
  toolConfig: string;
  agentLoopConfig: string;
  rewardFile: string;
}

export interface TrainerLengths {
  /** Longest prompt of the task set (system + instruction) plus room for a first observation, in tokens. */
  maxPromptLength: number;
  /** Of which room for a first observation (0 where the trajectory needs the whole context). */
  firstObservationTokens: number;
  /** The multi-turn response: every act and observation after the prompt, in tokens. */
  maxResponseLength: number;
  /** verl cuts a tool response by characters, not tokens. */
  maxToolResponseChars: number;
}

/** Our KL estimators by verl's names for them (verl/trainer/ppo/core_algos.py kl_penalty). */
const KL_TYPE = { k1: 'kl', k2: 'mse', k3: 'low_var_kl' } as const;
/** Our loss aggregations by verl's; `constant` is Dr.GRPO's fixed normaliser, verl's seq-mean-token-sum-norm. */
const LOSS_AGG = { 'token-mean': 'token-mean', 'seq-mean-token-mean': 'seq-mean-token-mean', constant: 'seq-mean-token-sum-norm' } as const;

/** The RL stage's optimiser: `optim` with the stage's own overrides, as the trainer resolves it. */
function rlOptim(c: RunConfig) {
  const stage = c.optim.stages.rl;
  return {
    lr: stage.lr ?? c.optim.lr,
    warmupSteps: stage.warmupSteps ?? c.optim.warmupSteps,
    minLrRatio: stage.minLrRatio ?? c.optim.minLrRatio,
    schedule: stage.schedule ?? c.optim.schedule,
  };
}

export function grpoTrainerConfig(c: RunConfig, run: { id: string; name: string }, trainTasks: number, paths: TrainerPaths, lengths: TrainerLengths): { [key: string]: YamlValue } {
  const optim = rlOptim(c);
  const r = c.rollout;
  // verl stops at whichever ends first, steps or epochs: enough epochs that the run's step count decides.
  const epochs = Math.max(1, Math.ceil((c.steps * r.tasksPerStep) / Math.max(1, trainTasks)));
  const sequence = lengths.maxPromptLength + lengths.maxResponseLength;
  return {
    hydra: { searchpath: ['pkg://verl.trainer.config'] },
    defaults: ['ppo_trainer', '_self_'],
    algorithm: {
      adv_estimator: 'grpo',
      norm_adv_by_std_in_grpo: c.loss.stdNormalize,
      use_kl_in_reward: false,
    },
    data: {
      train_files: paths.trainFile,
      val_files: paths.valFile,
      train_batch_size: r.tasksPerStep,
      max_prompt_length: lengths.maxPromptLength,
      max_response_length: lengths.maxResponseLength,
      return_raw_chat: true,
      shuffle: true,
      seed: c.seed,
      filter_overlong_prompts: false,
      truncation: 'error',
    },
    actor_rollout_ref: {
      model: { path: paths.modelDir },
      actor: {
        optim: {
          lr: optim.lr,
          weight_decay: c.optim.weightDecay,
          lr_warmup_steps: optim.warmupSteps,
          min_lr_ratio: optim.minLrRatio,
          lr_scheduler_type: optim.schedule,
          clip_grad: c.optim.gradClip,
        },
        grad_clip: c.optim.gradClip,
        clip_ratio_low: c.loss.clipLow,
        clip_ratio_high: c.loss.clipHigh,
        clip_ratio_c: c.loss.dualClip,
        loss_agg_mode: LOSS_AGG[c.loss.aggregation],
        use_kl_loss: c.loss.klBeta > 0,
        kl_loss_coef: c.loss.klBeta,
        kl_loss_type: KL_TYPE[c.loss.klEstimator],
        ppo_epochs: c.optim.ppoEpochs,
        // One update per step over the whole batch, as our loop does (a mini-batch counts prompts).
        ppo_mini_batch_size: r.tasksPerStep,
        // Token-budgeted micro-batches, as our microBatchTokens; never below one whole sequence.
        use_dynamic_bsz: true,
        ppo_max_token_len_per_gpu: Math.max(c.optim.microBatchTokens, sequence),
        data_loader_seed: c.seed,
        fsdp_config: { seed: c.seed },
      },
      ref: { fsdp_config: { seed: c.seed } },
      rollout: {
        name: 'vllm',
        mode: 'async',
        n: r.k,
        temperature: r.temperature,
        top_p: r.topP,
        tensor_model_parallel_size: 1,
        multi_turn: {
          enable: true,
          max_assistant_turns: r.maxTurns,
          max_tool_response_length: lengths.maxToolResponseChars,
          tool_config_path: paths.toolConfig,
          format: 'hermes',
        },
        agent: { default_agent_loop: AGENT_LOOP_NAME, agent_loop_config_path: paths.agentLoopConfig },
      },
    },
    // The reward loop hands the agent loop's extra fields (the `finish` result) to the reward function.
    reward_model: { use_reward_loop: true, reward_manager: 'naive' },
    custom_reward_function: { path: paths.rewardFile, name: 'compute_score' },
    trainer: {
      project_name: 'envace',
      experiment_name: `${run.name}-${run.id}`,
      total_training_steps: c.steps,
      total_epochs: epochs,
      save_freq: c.checkpointEvery,
      max_actor_ckpt_to_keep: c.checkpointKeepLast,
      test_freq: c.evalEvery > 0 ? c.evalEvery : -1,
      val_before_train: c.evalEvery > 0,
      logger: ['console'],
      nnodes: 1,
      n_gpus_per_node: 1,
    },
  };
}
