import type { ModelRef } from '../../../../electron/contract';

/**
 * The quickstart: retail's procedural look-ups on tiny, the quick recipe with a measured before → after
 * on tasks training never saw (held-out users, orders and items: 0 % → 58 % in about 3 minutes on two
 * cores, engine/runs/recipes.ts; the recommended recipe, robust to a changed prompt, takes longer). mock, first in the registry, is a contract-test env whose 10 tasks are
 * its training and held-out split alike, so it cannot show learning that transfers.
 */
export const QUICKSTART_ENV = 'retail';
export const QUICKSTART_MODEL: ModelRef = { preset: 'tiny' };

/** retail when this engine has it, else the first registered environment (else retail, which the empty state explains). */
export function quickstartEnv(envIds: string[]): string {
  return envIds.includes(QUICKSTART_ENV) ? QUICKSTART_ENV : (envIds[0] ?? QUICKSTART_ENV);
}

/**
 * The same run from a terminal in the checkout: `envace train` without --algo trains the recommended
 * recipe, `--quick` its quick variant (where the env × model has one: `quick`, read from the recipe the
 * engine returned). `npx`, as in the README: `npm ci` puts no `envace` on the PATH.
 */
export function quickstartCommand(env: string, model: ModelRef = QUICKSTART_MODEL, quick = false): string {
  return ['npx envace train', `--env ${env}`, 'preset' in model ? `--preset ${model.preset}` : `--model ${model.imported}`, ...(quick ? ['--quick'] : [])].join(' ');
}
