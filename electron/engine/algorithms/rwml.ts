/**
 * RWML pieces (algorithms.md "RWML"): how close a predicted observation is to the real one, the
 * reward made from that similarity, and the too-easy transition filter.
 */
import { AlgorithmError } from './errors';
import type { Rng } from '../random';

export type SimilarityName = 'json-soft' | 'json-f1' | 'rouge-l' | 'char-ngram-cos' | 'embedding';

export interface SimilarityOptions {
  /**
   * The prediction was cut at its token budget, so it can only be judged on what it had room for:
   * `json-soft` then scores its precision against the real observation; the others ignore this.
   */
  cut?: boolean;
}
export type Similarity = (predicted: string, real: string, opts?: SimilarityOptions) => Promise<number>;

/** Any sentence-embedding model (e.g. an ONNX one the user points at). */
export interface Embedder {
  embed(texts: string[]): Promise<number[][]>;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Leaves of a JSON value as `path=value` strings (arrays by index, objects by key). */
function leaves(value: unknown, path = '$', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, `${path}.${k}`, out);
  else out.push(`${path}=${JSON.stringify(value)}`);
  return out;
}

/** F1 of two multisets of strings. */
function multisetF1(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  let overlap = 0;
  for (const x of a) {
    const c = counts.get(x) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(x, c - 1);
    }
  }
  if (overlap === 0) return 0;
  const p = overlap / a.length;
  const r = overlap / b.length;
  return (2 * p * r) / (p + r);
}

/**
 * Field-level F1 of two JSON observations (each leaf `path=value` is one field). When either side is
 * not JSON (an error message, plain text), the comparison falls back to ROUGE-L.
 */
export function jsonF1(predicted: string, real: string): number {
  const p = tryJson(predicted);
  const r = tryJson(real);
  if (!p.ok || !r.ok) return rougeL(predicted, real);
  return multisetF1(leaves(p.value), leaves(r.value));
}

const words = (s: string) => s.toLowerCase().split(/\s+/).filter(Boolean);

/**
 * Token F1 (SQuAD's): the F1 of the two bags of lower-cased whitespace tokens, order ignored. The
 * reality check's figure for observations that are not JSON (an error message, prose), where there
 * are no fields to count.
 */
export function tokenF1(predicted: string, real: string): number {
  return multisetF1(words(predicted), words(real));
}

/** Above this many LCS cells (|a|·|b|) the character similarity is the n-gram cosine, which is linear. */
const MAX_LCS_CELLS = 1 << 22;

/** F1 of the longest common subsequence of two token lists. */
function lcsF1(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Int32Array(b.length + 1);
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    prev = cur;
  }
  const lcs = prev[b.length];
  if (lcs === 0) return 0;
  const p = lcs / a.length;
  const r = lcs / b.length;
  return (2 * p * r) / (p + r);
}

/** ROUGE-L F1 over whitespace tokens (longest common subsequence). */
export function rougeL(predicted: string, real: string): number {
  return lcsF1(words(predicted), words(real));
}

/**
 * ROUGE-L F1 over characters. Whitespace tokens make compact JSON one token, so word ROUGE-L is
 * exact match there; characters give a near miss its due. A prediction cut at its token budget is
 * compared with the real text's prefix of the same length: the rest it had no room to write.
 */
export function charRougeL(predicted: string, real: string, opts: SimilarityOptions = {}): number {
  const a = [...predicted];
  const b = [...real].slice(0, opts.cut ? a.length : undefined);
  if (a.length * b.length > MAX_LCS_CELLS) return charNgramCosine(a.join(''), b.join(''));
  return lcsF1(a, b);
}

/** Repairs tried on cut-off JSON before giving up (each is one JSON.parse). */
const MAX_REPAIRS = 64;

/**
 * JSON that may have been cut off (a prediction stopped at its token budget, an env output capped):
 * parsed as is, else closed up at the last point where that parses: an open string closed, open
 * brackets closed, or the text cut back to a comma or bracket first (a dangling key, a half literal).
 * Only text that opens an object or array is repaired, so prose never becomes JSON by accident.
 */
export function parseLenientJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const whole = tryJson(text);
  if (whole.ok) return whole;
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return { ok: false };
  const stack: string[] = [];
  const cuts: Array<{ at: number; open: string }> = [];
  let inString = false;
  let escaped = false;
  for (let i = 0; i < t.length; i++) {
    const ch = t[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') {
      stack.push(ch);
      cuts.push({ at: i + 1, open: stack.join('') });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
      cuts.push({ at: i + 1, open: stack.join('') });
    } else if (ch === ',') cuts.push({ at: i, open: stack.join('') });
  }
  const close = (open: string) => [...open].reverse().map((b) => (b === '{' ? '}' : ']')).join('');
  const body = inString ? `${escaped ? t.slice(0, -1) : t}"` : t;
  const candidates = [body + close(stack.join('')), ...cuts.slice(-MAX_REPAIRS).reverse().map((c) => t.slice(0, c.at) + close(c.open))];
  for (const c of candidates) {
    const parsed = tryJson(c);
    if (parsed.ok) return parsed;
  }
  return { ok: false };
}

/** Leaves of a JSON value by path, in document order; an empty object or array is a leaf too. */
function leafMap(value: unknown, path = '$', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value) && value.length > 0) value.forEach((v, i) => leafMap(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0)
    for (const [k, v] of Object.entries(value)) leafMap(v, `${path}[${JSON.stringify(k)}]`, out);
  else out.set(path, value);
  return out;
}

/**
 * Dice overlap of character bigrams. For short field values it tells a near miss ('#W7807988' vs
 * '#W7807989': 0.88) from a wrong value ('pending' vs 'delivered': 0), where a character LCS
 * would credit any two words a few shared letters.
 */
function bigramDice(a: string, b: string): number {
  if (a === b) return 1;
  const grams = (s: string) => ngramCounts(s, 2);
  const ga = grams(a);
  const gb = grams(b);
  let common = 0;
  for (const [g, c] of ga) common += Math.min(c, gb.get(g) ?? 0);
  const total = Math.max(0, a.length - 1) + Math.max(0, b.length - 1);
  return total === 0 ? 0 : (2 * common) / total;
}

/** How close two leaf values are: strings by character bigrams, numbers by relative distance, the rest exactly. */
function leafSimilarity(p: unknown, r: unknown): number {
  if (typeof p === 'string' && typeof r === 'string') return bigramDice(p, r);
  if (typeof p === 'number' && typeof r === 'number') return p === r ? 1 : Math.max(0, 1 - Math.abs(p - r) / Math.max(Math.abs(p), Math.abs(r)));
  return JSON.stringify(p) === JSON.stringify(r) ? 1 : 0;
}

/**
 * JSON similarity that rewards near misses. Both sides become path → leaf pairs (key order does
 * not matter; array order does) and score F1 where a shared path earns the closeness of its two
 * values, so one wrong field out of ten costs about a tenth, not the whole reward. A prediction cut
 * at its token budget scores its precision (what it wrote, checked against the full real value),
 * with its last leaf, the one the cut may have broken, compared as a prefix. Text that is not JSON
 * on either side falls back to character ROUGE-L.
 */
export function jsonSoft(predicted: string, real: string, opts: SimilarityOptions = {}): number {
  const p = parseLenientJson(predicted);
  const r = parseLenientJson(real);
  if (!p.ok || !r.ok) return charRougeL(predicted, real, opts);
  const pl = [...leafMap(p.value)];
  const rl = leafMap(r.value);
  let matched = 0;
  pl.forEach(([path, v], i) => {
    if (!rl.has(path)) return;
    const w = rl.get(path);
    if (opts.cut && i === pl.length - 1) {
      const text = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x));
      matched += charRougeL(text(v), text(w), { cut: true });
    } else matched += leafSimilarity(v, w);
  });
  return opts.cut ? matched / pl.length : (2 * matched) / (pl.length + rl.size);
}

function ngramCounts(text: string, n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + n <= text.length; i++) {
    const g = text.slice(i, i + n);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/** Cosine similarity of character n-gram count vectors (n = 3 by default). */
export function charNgramCosine(predicted: string, real: string, n = 3): number {
  if (predicted === real) return 1;
  const a = ngramCounts(predicted, n);
  const b = ngramCounts(real, n);
  if (a.size === 0 || b.size === 0) return 0;
  let dot = 0;
  for (const [g, c] of a) dot += c * (b.get(g) ?? 0);
  const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((s, c) => s + c * c, 0));
  return dot / (norm(a) * norm(b));
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new AlgorithmError(`embedding widths differ (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export type TextSimilarityName = Exclude<SimilarityName, 'embedding'>;

/** The similarities that need no model, synchronously. */
export function textSimilarity(name: TextSimilarityName, predicted: string, real: string, opts: SimilarityOptions = {}): number {
  switch (name) {
    case 'json-soft':
      return jsonSoft(predicted, real, opts);
    case 'json-f1':
      return jsonF1(predicted, real);
    case 'rouge-l':
      return rougeL(predicted, real);
    case 'char-ngram-cos':
      return charNgramCosine(predicted, real);
    default:
      throw new AlgorithmError(`unknown similarity '${String(name)}'`);
  }
}

/** The similarity function a run selects; `embedding` needs an embedder. */
export function similarityFunction(name: SimilarityName, embedder?: Embedder): Similarity {
  switch (name) {
    case 'json-soft':
    case 'json-f1':
    case 'rouge-l':
    case 'char-ngram-cos':
      return async (p, r, opts) => textSimilarity(name, p, r, opts);
    case 'embedding': {
      if (!embedder)
        throw new AlgorithmError(
          "similarity 'embedding' needs a sentence-embedding model; none is configured (use json-soft, json-f1, rouge-l or char-ngram-cos)",
        );
      return async (p, r) => {
        const [ep, er] = await embedder.embed([p, r]);
        return Math.max(0, cosine(ep, er));
      };
    }
    default:
      throw new AlgorithmError(`unknown similarity '${String(name)}'`);
  }
}

/** Binary: 1 when similarity ≥ τ. Rounded: the similarity rounded to the nearest 0.2. */
export function similarityReward(similarity: number, mode: 'binary' | 'rounded', threshold: number): number {
  if (!(similarity >= 0 && similarity <= 1 + 1e-9)) throw new AlgorithmError(`similarity must be in [0, 1], got ${similarity}`);
  if (mode === 'binary') return similarity >= threshold ? 1 : 0;
  return Math.round(Math.round(similarity / 0.2) * 0.2 * 10) / 10;
}

/**
 * Indices of transitions kept for training: a transition whose probe mean reward is ≥ `easyThreshold`
 * is kept only with probability `keepProbability`; the rest are always kept.
 */
export function dropEasy(probeMeanRewards: readonly number[], easyThreshold: number, keepProbability: number, rng: Rng): number[] {
  const kept: number[] = [];
  probeMeanRewards.forEach((m, i) => {
    // One draw per transition, easy or not, so the stream does not depend on which are easy.
    const u = rng.next();
    if (m < easyThreshold || u < keepProbability) kept.push(i);
  });
  return kept;
}

/** A transition once its G predictions are scored. */
export interface Probed {
  rewards: number[];
}

/** Probe rounds one step may spend refilling the places of dropped transitions. */
export const MAX_FILL_ROUNDS = 4;

/**
 * The transitions one world-model step trains on: `size` of them, taken from `pool` in order, with
 * too-easy ones dropped BEFORE any advantage is computed. Each round probes the next transitions
 * (their G samples are both the probe and, when kept, the training samples), applies `dropEasy`, and
 * the next round refills the dropped places from the rest of the pool, so a step keeps its size
 * while the pool lasts. Dropping after the advantages, as this stage first did, only shrank the
 * batch. Rounds are capped: a pool of nothing but easy transitions costs at most that many probes.
 */
export async function fillBatch<T, P extends Probed>(
  pool: readonly T[],
  size: number,
  probe: (items: T[], round: number) => Promise<P[]>,
  drop: { easyThreshold: number; keepProbability: number; rng: Rng; maxRounds?: number },
): Promise<{ kept: P[]; probed: P[] }> {
  const kept: P[] = [];
  const probed: P[] = [];
  let next = 0;
  for (let round = 0; round < (drop.maxRounds ?? MAX_FILL_ROUNDS) && kept.length < size && next < pool.length; round++) {
    const items = pool.slice(next, next + size - kept.length);
    next += items.length;
    const results = await probe(items, round);
    probed.push(...results);
    const means = results.map((r) => (r.rewards.length ? r.rewards.reduce((s, v) => s + v, 0) / r.rewards.length : 0));
    for (const i of dropEasy(means, drop.easyThreshold, drop.keepProbability, drop.rng)) kept.push(results[i]);
  }
  return { kept, probed };
}
