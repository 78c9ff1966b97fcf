import type { RunConfigInput } from '../../../../electron/contract';

/** The quickstart recipe (quality.md: a built-in environment, the `tiny` preset, SFT then EnvACE). */
export const QUICKSTART_FALLBACK_ENV = 'retail';

export function quickstartConfig(envIds: string[]): RunConfigInput {
  return { env: envIds[0] ?? QUICKSTART_FALLBACK_ENV, algo: 'sft+envace', model: { preset: 'tiny' } };
}

/** The same run from a terminal (architecture.md's stable `envace train` line). */
export function quickstartCommand(config: RunConfigInput): string {
  const model = config.model && 'preset' in config.model ? `--preset ${config.model.preset}` : '';
  return ['envace train', `--env ${config.env}`, `--algo ${config.algo}`, model].filter(Boolean).join(' ');
}
