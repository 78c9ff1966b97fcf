// Loss terms against the worked examples in algorithms.md and hand-computed values.
import { describe, expect, it } from 'vitest';
import { grad } from '../../../../native-models/graph/autodiff/grad';
import { Graph, type Tensor } from '../../../../native-models/graph/builder';
import * as F from '../../../../native-models/graph/functional';
import { type Aggregation, aggregate, clippedSurrogate, klPerToken, temperedLogprobs, tokenLogprobs, worldModelLoss } from '../../../../native-models/transformer/losses';
import { compile, ortTensor, run } from '../support';

type Feeds = Record<string, { shape: number[]; values: number[]; dtype?: 'float64' | 'int64' }>;

/** Builds a float64 graph over named inputs, runs it once and returns every output. */
async function evaluate(feeds: Feeds, build: (g: Graph, x: Record<string, Tensor>) => Record<string, Tensor>) {
  const g = new Graph('loss_case');
  const x = Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, g.input(k, v.dtype ?? 'float64', v.shape)]));
  for (const [name, t] of Object.entries(build(g, x))) g.output(t, name);
  const session = await compile(g);
  return run(session, Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, ortTensor(v.dtype ?? 'float64', v.values, v.shape)])));
}

const scalar = (v: number) => ({ shape: [], values: [v] });

describe('clipped surrogate with dual clip (ε = 0.2, c = 3)', () => {
  // Columns: A, ρ, expected per-token loss, expected d loss / d logπ.
  const rows: [number, number, number, number][] = [
    [1, 1.5, -1.2, 0], // worked example: max(−1.5, −1.2) = −1.2, clipped → no gradient
    [-1, 5, 3, 0], // worked example: max(5, 1.2) = 5, dual clip → 3, no gradient
    [1, 1.1, -1.1, -1.1], // inside the band: −A·ρ, gradient −A·ρ
    [1, 0.5, -0.5, -0.5], // ρ below the band with A > 0: the unclipped term is the max
    [-1, 0.5, 0.8, 0], // ρ below the band with A < 0: clipped at 1 − ε
    [-1, 1.25, 1.25, 1.25], // ρ above the band with A < 0 but under c: −A·ρ
    [-2, 2, 4, 4], // dual clip not reached: −A·ρ = 4 < −A·c = 6
    [0, 3, 0, 0], // zero advantage contributes nothing
  ];
  it('matches per-token values and gradients at and around the clip boundaries', async () => {
    const n = rows.length;
    const out = await evaluate(
      {
        lp: { shape: [1, n], values: rows.map(([, r]) => Math.log(r)) },
        old: { shape: [1, n], values: new Array(n).fill(0) },
        adv: { shape: [1, n], values: rows.map(([a]) => a) },
        lo: scalar(0.2), hi: scalar(0.2), c: scalar(3),
      },
      (_, x) => {
        const s = clippedSurrogate({ logprobs: x.lp, oldLogprobs: x.old, advantages: x.adv, clipLow: x.lo, clipHigh: x.hi, dualClip: x.c });
        const [dlp] = grad(F.reduceSum(s.perToken, undefined, false), [x.lp]);
        return { loss: s.perToken, dlp, clipped: s.clipped };
      },
    );
    rows.forEach(([a, r, loss, d], i) => {
      expect(out.loss[i], `A=${a} ρ=${r}`).toBeCloseTo(loss, 12);
      expect(out.dlp[i], `gradient at A=${a} ρ=${r}`).toBeCloseTo(d, 12);
    });
    expect(out.clipped).toEqual(rows.map(([, r]) => (r < 0.8 || r > 1.2 ? 1 : 0)));
  });

  it('uses separate low and high clip ranges', async () => {
    const out = await evaluate(
      { lp: { shape: [1, 2], values: [Math.log(1.25), Math.log(0.75)] }, old: { shape: [1, 2], values: [0, 0] }, adv: { shape: [1, 2], values: [1, -1] }, lo: scalar(0.2), hi: scalar(0.28), c: scalar(3) },
      (_, x) => ({ loss: clippedSurrogate({ logprobs: x.lp, oldLogprobs: x.old, advantages: x.adv, clipLow: x.lo, clipHigh: x.hi, dualClip: x.c }).perToken }),
    );
    expect(out.loss[0]).toBeCloseTo(-1.25, 12); // 1.25 < 1 + 0.28: unclipped
    expect(out.loss[1]).toBeCloseTo(0.8, 12); // 0.75 < 1 − 0.2 with A < 0: clipped to 0.8
  });
});

describe('aggregation over masks', () => {
  // Two sequences; per-token values and a mask with 3 and 1 counted tokens.
  const values = [1, 2, 3, 100, 4, 100, 100, 100];
  const mask = [1, 1, 1, 0, 1, 0, 0, 0];
  const cases: [Aggregation, number, number][] = [
    ['token-mean', 4, (1 + 2 + 3 + 4) / 4], // Σ over counted tokens / their count
    ['seq-mean-token-mean', 2, (2 + 4) / 2], // mean of per-sequence means
    ['constant', 16, 10 / 16], // Dr.GRPO: fixed normaliser
  ];
  for (const [mode, norm, expected] of cases) {
    it(`${mode} gives ${expected}`, async () => {
      const out = await evaluate(
        { v: { shape: [2, 4], values }, m: { shape: [2, 4], values: mask }, n: scalar(norm) },
        (_, x) => ({ loss: aggregate(x.v, x.m, mode, x.n) }),
      );
      expect(out.loss[0]).toBeCloseTo(expected, 12);
    });
  }
  it('seq-mean-token-mean ignores a sequence with no counted tokens', async () => {
    const out = await evaluate(
      { v: { shape: [2, 2], values: [5, 7, 9, 9] }, m: { shape: [2, 2], values: [1, 1, 0, 0] }, n: scalar(1) },
      (_, x) => ({ loss: aggregate(x.v, x.m, 'seq-mean-token-mean', x.n) }),
    );
    expect(out.loss[0]).toBeCloseTo(6, 12);
  });
});

describe('world-model losses', () => {
  it('CMAE worked example: p = [0.9, 0.1, 0.15, 0.5], ρ = 0.2 → (0.9 + 0.85) / 4 = 0.4375', async () => {
    const p = [0.9, 0.1, 0.15, 0.5];
    const out = await evaluate(
      { lp: { shape: [1, 4], values: p.map(Math.log) }, w: { shape: [1, 4], values: [0.25, 0.25, 0.25, 0.25] }, rho: scalar(0.2) },
      (_, x) => {
        const loss = worldModelLoss(x.lp, x.w, { kind: 'cmae', rho: x.rho });
        return { loss, dlp: grad(loss, [x.lp])[0] };
      },
    );
    expect(out.loss[0]).toBeCloseTo(0.4375, 12);
    // d/d logp of w·(1 − p) = −w·p on counted tokens; tokens above ρ get no gradient.
    expect(out.dlp.map((v) => +v.toFixed(12))).toEqual([0, -0.025, -0.0375, 0]);
  });

  it('counts a token exactly at the threshold (p ≤ ρ) and weights transitions separately', async () => {
    const out = await evaluate(
      { lp: { shape: [1, 3], values: [Math.log(0.2), Math.log(0.5), Math.log(0.1)] }, w: { shape: [1, 3], values: [0.5, 0.5, 2] }, rho: scalar(0.2) },
      (_, x) => ({ loss: worldModelLoss(x.lp, x.w, { kind: 'cmae', rho: x.rho }) }),
    );
    expect(out.loss[0]).toBeCloseTo(0.5 * 0.8 + 2 * 0.9, 6);
  });

  it('cross-entropy variant sums weighted surprisal', async () => {
    const out = await evaluate(
      { lp: { shape: [1, 2], values: [Math.log(0.5), Math.log(0.25)] }, w: { shape: [1, 2], values: [1, 0.5] } },
      (_, x) => ({ loss: worldModelLoss(x.lp, x.w, { kind: 'ce' }) }),
    );
    expect(out.loss[0]).toBeCloseTo(Math.log(2) + 0.5 * Math.log(4), 12);
  });
});

describe('KL estimators', () => {
  it('k1, k2, k3 per token from log π − log π_ref', async () => {
    const r = [0.3, -0.5];
    const out = await evaluate({ lp: { shape: [1, 2], values: r }, ref: { shape: [1, 2], values: [0, 0] } }, (_, x) => ({
      k1: klPerToken(x.lp, x.ref, 'k1'),
      k2: klPerToken(x.lp, x.ref, 'k2'),
      k3: klPerToken(x.lp, x.ref, 'k3'),
    }));
    r.forEach((v, i) => {
      expect(out.k1[i]).toBeCloseTo(v, 12);
      expect(out.k2[i]).toBeCloseTo(0.5 * v * v, 12);
      expect(out.k3[i]).toBeCloseTo(Math.exp(-v) - 1 + v, 12);
    });
  });
});

describe('token log-probs and entropy', () => {
  it('picks the target log-softmax and reports the distribution entropy', async () => {
    const logits = [0, Math.log(3), 0, Math.log(2), 0, 0]; // row softmaxes: [1/5, 3/5, 1/5] and [1/2, 1/4, 1/4]
    const out = await evaluate(
      { logits: { shape: [2, 3], values: logits }, targets: { shape: [1, 2], values: [1, 0], dtype: 'int64' } },
      (_, x) => tokenLogprobs(x.logits, x.targets) as unknown as Record<string, Tensor>,
    );
    const p0 = [1 / 5, 3 / 5, 1 / 5];
    const p1 = [2 / 4, 1 / 4, 1 / 4];
    const H = (p: number[]) => -p.reduce((s, q) => s + q * Math.log(q), 0);
    expect(out.logprobs[0]).toBeCloseTo(Math.log(3 / 5), 12);
    expect(out.logprobs[1]).toBeCloseTo(Math.log(1 / 2), 12);
    expect(out.entropy[0]).toBeCloseTo(H(p0), 12);
    expect(out.entropy[1]).toBeCloseTo(H(p1), 12);
  });
});

describe('tempered log-probs (π_θ of the ratio at the sampling temperature)', () => {
  it('picks log softmax(logits / T) at the target, and its gradient is (onehot − p_T) / T', async () => {
    const logits = [0, Math.log(3), 0, Math.log(2), 0, 0];
    const T = 0.5; // softmax(l / 0.5) squares the odds: rows [1, 9, 1] / 11 and [4, 1, 1] / 6
    const out = await evaluate(
      { logits: { shape: [2, 3], values: logits }, targets: { shape: [1, 2], values: [1, 0], dtype: 'int64' } },
      (_, x) => {
        const lp = temperedLogprobs(x.logits, x.targets, T);
        const [dl] = grad(F.reduceSum(lp, undefined, false), [x.logits]);
        return { lp, dl };
      },
    );
    expect(out.lp[0]).toBeCloseTo(Math.log(9 / 11), 12);
    expect(out.lp[1]).toBeCloseTo(Math.log(4 / 6), 12);
    const expected = [[0, 1, 0], [1, 0, 0]].flatMap((onehot, r) => onehot.map((o, v) => (o - [[1 / 11, 9 / 11, 1 / 11], [4 / 6, 1 / 6, 1 / 6]][r][v]) / T));
    expected.forEach((d, i) => expect(out.dl[i], `d/dlogit ${i}`).toBeCloseTo(d, 12));
  });

  it('refuses a temperature that is not a positive number', () => {
    const g = new Graph('t');
    const l = g.input('l', 'float64', [1, 3]);
    const t = g.input('t', 'int64', [1, 1]);
    for (const T of [0, -1, Number.NaN, Infinity]) expect(() => temperedLogprobs(l, t, T)).toThrow(/temperature/);
  });
});
