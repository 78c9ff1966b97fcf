import type { ModelRef } from '../../../../electron/contract';

/** The quickstart: the first registered environment (else retail), with nano, its fastest recipe to see learn. */
export const QUICKSTART_FALLBACK_ENV = 'retail';
export const QUICKSTART_MODEL: ModelRef = { preset: 'nano' };

export function quickstartEnv(envIds: string[]): string {
  return envIds[0] ?? QUICKSTART_FALLBACK_ENV;
}

/**
 * The same run from a terminal in the checkout: `envace train` without --algo trains the recommended
 * recipe. `npx`, as in the README: `npm ci` puts no `envace` on the PATH.
 */
export function quickstartCommand(env: string, model: ModelRef = QUICKSTART_MODEL): string {
  return ['npx envace train', `--env ${env}`, 'preset' in model ? `--preset ${model.preset}` : `--model ${model.imported}`].join(' ');
}
