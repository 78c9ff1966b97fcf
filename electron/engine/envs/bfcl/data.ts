/**
 * Reading BFCL v4 single-turn data: question files and their possible answers (JSON Lines
 * despite the `.json` name), joined by id. Only the categories we use are read.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { JsonValue, Split } from '../types';

export type BfclCategory =
  | 'simple_python'
  | 'multiple'
  | 'parallel'
  | 'parallel_multiple'
  | 'irrelevance'
  | 'live_simple'
  | 'live_multiple'
  | 'live_parallel'
  | 'live_parallel_multiple'
  | 'live_irrelevance';

/** live_* trains; the non-live python categories are held out (java/javascript items are skipped). */
export const BFCL_SPLIT_CATEGORIES: Record<Split, BfclCategory[]> = {
  train: ['live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple', 'live_irrelevance'],
  heldout: ['simple_python', 'multiple', 'parallel', 'parallel_multiple', 'irrelevance'],
  ood: [],
};

export function isIrrelevance(category: BfclCategory): boolean {
  return category.endsWith('irrelevance');
}

export function isParallel(category: BfclCategory): boolean {
  return category.includes('parallel');
}

const bfclSchema: z.ZodType<BfclSchema> = z.lazy(() =>
  z
    .object({
      type: z.string().optional(),
      description: z.string().optional(),
      properties: z.record(z.string(), bfclSchema).optional(),
      items: bfclSchema.optional(),
      required: z.array(z.string()).optional(),
      enum: z.array(z.json()).optional(),
      default: z.json().optional(),
    })
    .loose(),
);

export interface BfclSchema {
  type?: string;
  description?: string;
  properties?: { [name: string]: BfclSchema };
  items?: BfclSchema;
  required?: string[];
  enum?: JsonValue[];
  default?: JsonValue;
  [key: string]: unknown;
}

const functionDoc = z.object({ name: z.string().min(1), description: z.string().default(''), parameters: bfclSchema });
export type BfclFunction = z.infer<typeof functionDoc>;

const questionLine = z.object({
  id: z.string(),
  question: z.array(z.array(z.object({ role: z.string(), content: z.string() }))).min(1),
  function: z.array(functionDoc),
});

/** One expected call: function name → parameter → allowed values. */
export type GroundTruthCall = { name: string; params: { [param: string]: JsonValue[] } };

const answerLine = z.object({ id: z.string(), ground_truth: z.array(z.record(z.string(), z.record(z.string(), z.array(z.json())))) });

export interface BfclItem {
  id: string;
  category: BfclCategory;
  /** The turn's messages (a system prompt, if any, then the user's request). */
  messages: Array<{ role: string; content: string }>;
  functions: BfclFunction[];
  /** Empty for irrelevance items: the right answer is no call. */
  groundTruth: GroundTruthCall[];
}

export class BfclDataError extends Error {
  override name = 'BfclDataError';
}

function readJsonLines<T>(file: string, schema: z.ZodType<T>): T[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new BfclDataError(`cannot read BFCL file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const out: T[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new BfclDataError(`${file} line ${i + 1}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BfclDataError(`${file} line ${i + 1}: ${issue.path.join('.')}: ${issue.message}`);
    }
    out.push(parsed.data);
  });
  return out;
}

/** All items of one category from the BFCL `data/` folder. */
export function loadCategory(dataDir: string, category: BfclCategory): BfclItem[] {
  const file = `BFCL_v4_${category}.json`;
  const questions = readJsonLines(path.join(dataDir, file), questionLine);
  const answers = new Map<string, GroundTruthCall[]>();
  if (!isIrrelevance(category)) {
    for (const a of readJsonLines(path.join(dataDir, 'possible_answer', file), answerLine)) {
      answers.set(
        a.id,
        a.ground_truth.map((call) => {
          const [name, params] = Object.entries(call)[0];
          return { name, params };
        }),
      );
    }
  }
  return questions.map((q) => {
    const groundTruth = answers.get(q.id);
    if (!isIrrelevance(category) && !groundTruth) throw new BfclDataError(`${file}: no possible answer for ${q.id}`);
    return { id: q.id, category, messages: q.question[0], functions: q.function, groundTruth: groundTruth ?? [] };
  });
}
