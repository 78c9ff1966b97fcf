import { z } from 'zod';
import { EnvSplit } from './envs';

/** What a form starts from when the person has not chosen yet; null: the form's own start (none picked, every task). */
export const SettingsDefaults = z.strictObject({
  newRun: z.strictObject({
    /** Environment id picked in New run. */
    env: z.string().min(1).max(128).nullable(),
    /** Model as New run names it: a preset (nano, tiny, small) or `imported:<name>`. */
    model: z.string().min(1).max(200).nullable(),
  }),
  evaluate: z.strictObject({
    split: EnvSplit,
    /** Tasks of the split to evaluate; null: all of them. */
    limit: z.number().int().min(1).max(10_000).nullable(),
  }),
});
export type SettingsDefaults = z.infer<typeof SettingsDefaults>;

/** The defaults a data home without a settings file has. */
export const builtInDefaults: SettingsDefaults = { newRun: { env: null, model: null }, evaluate: { split: 'heldout', limit: null } };

export const Settings = z.strictObject({
  dataHome: z.string(),
  /** Where the defaults are kept (in the data home, so a CLI on the same home sees them too). */
  settingsFile: z.string(),
  /** Bytes under the data home; null when it could not be read. */
  homeBytes: z.number().nonnegative().nullable(),
  /** Free bytes on the disk that holds it (for this user); null where the platform does not say. */
  freeBytes: z.number().nonnegative().nullable(),
  /** One writer per data home: whether this engine owns it, and if not, who does (in words). */
  access: z.strictObject({ writable: z.boolean(), owner: z.string().nullable() }),
  defaults: SettingsDefaults,
});
export type Settings = z.infer<typeof Settings>;

export const SettingsSetInput = z.strictObject({ defaults: SettingsDefaults });
