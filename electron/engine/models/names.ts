// Names of imported models: they become folder names under the data home, so only a safe alphabet.

/** Letters, digits, '.', '_' and '-', 1 to 64 characters. */
export const MODEL_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Suffixes of the atomic writer's temporary siblings (`<dir>.tmp-<hex>` etc., see native-models/io/atomic). */
const ATOMIC_LEFTOVER = /\.(tmp|ready|old)-[0-9a-f]+$/;

/** Why `name` cannot name a model, or undefined when it can. */
export function modelNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `a model name must be a string, got ${typeof name}`;
  if (!MODEL_NAME_PATTERN.test(name)) return `model name ${JSON.stringify(name.slice(0, 80))} must be 1-64 characters of A-Z a-z 0-9 . _ -`;
  if (name.startsWith('.')) return `model name ${JSON.stringify(name)} must not start with '.'`;
  if (ATOMIC_LEFTOVER.test(name)) return `model name ${JSON.stringify(name)} ends like a temporary folder (.tmp-/.ready-/.old-<hex>)`;
  return undefined;
}

/** A folder name under the models folder that is an interrupted write, not a model. */
export function isAtomicLeftover(folderName: string): boolean {
  return ATOMIC_LEFTOVER.test(folderName);
}
