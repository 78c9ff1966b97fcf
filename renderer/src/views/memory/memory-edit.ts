import { RehearsalMemory } from '../../../../electron/contract';

export type MemoryParse = { ok: true; value: RehearsalMemory } | { ok: false; issues: string[] };

/** The structured editor's text → a RehearsalMemory, or issues in plain words (JSON syntax first, then the schema). */
export function parseMemoryJson(text: string): MemoryParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, issues: [`not valid JSON: ${(error as Error).message}`] };
  }
  const parsed = RehearsalMemory.safeParse(value);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues.slice(0, 12).map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`) };
  return { ok: true, value: parsed.data };
}
