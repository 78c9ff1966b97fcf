// Names of imported models: they become folder names under the data home, so they follow the one
// folder-name rule (electron/contract/folder-name.ts).

import { folderNameProblem, isAtomicLeftover } from '../../contract/folder-name';

export { isAtomicLeftover };

/** Why `name` cannot name a model, or undefined when it can. */
export function modelNameProblem(name: unknown): string | undefined {
  return folderNameProblem(name, 'a model name');
}
