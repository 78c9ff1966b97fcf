/**
 * RWML pieces (algorithms.md "RWML"): how close a predicted observation is to the real one, the
 * reward made from that similarity, and the too-easy transition filter.
 */
import { AlgorithmError } from './errors';
import type { Rng } from './random';

export type SimilarityName = 'json-f1' | 'rouge-l' | 'char-ngram-cos' | 'embedding';
export type Similarity = (predicted: string, real: string) => Promise<number>;

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

/** ROUGE-L F1 over whitespace tokens (longest common subsequence). */
export function rougeL(predicted: string, real: string): number {
  const a = words(predicted);
  const b = words(real);
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    prev = cur;
  }
  const lcs = prev[b.length];
  if (lcs === 0) return 0;
  const p = lcs / a.length;
  const r = lcs / b.length;
  return (2 * p * r) / (p + r);
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
export function textSimilarity(name: TextSimilarityName, predicted: string, real: string): number {
  switch (name) {
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
    case 'json-f1':
    case 'rouge-l':
    case 'char-ngram-cos':
      return async (p, r) => textSimilarity(name, p, r);
    case 'embedding': {
      if (!embedder)
        throw new AlgorithmError(
          "similarity 'embedding' needs a sentence-embedding model; none is configured (use json-f1, rouge-l or char-ngram-cos)",
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
