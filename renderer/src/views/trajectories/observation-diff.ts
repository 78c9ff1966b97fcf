import { diffJson, diffWords, type ChangeObject } from 'diff';

export interface DiffPart {
  text: string;
  kind: 'same' | 'imagined' | 'real';
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Imagined vs real observation: a structural diff (key by key, order-insensitive formatting)
 * when both are JSON objects/arrays, a word diff otherwise. "imagined" parts are only in the
 * rehearsal, "real" parts only in what the environment said.
 */
export function observationDiff(imagined: string, real: string): { mode: 'json' | 'words'; parts: DiffPart[] } {
  const a = parseJson(imagined);
  const b = parseJson(real);
  const json = a !== undefined && b !== undefined;
  const changes: ChangeObject<string>[] = json ? diffJson(a as object, b as object) : diffWords(imagined, real);
  return {
    mode: json ? 'json' : 'words',
    parts: changes.map((c) => ({ text: c.value, kind: c.added ? 'real' : c.removed ? 'imagined' : 'same' })),
  };
}
