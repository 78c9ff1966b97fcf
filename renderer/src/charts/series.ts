/** Pure shaping of metric series for the charts (architecture: "pure functions shape"). */

export interface Points {
  steps: number[];
  values: number[];
}

/**
 * Exponential moving average with TensorBoard's debiasing, so the first points are not pulled
 * towards zero. weight 0 = raw values; 0.99 = very smooth. Non-finite values pass through
 * unchanged and do not poison the average.
 */
export function smooth(values: number[], weight: number): number[] {
  const w = Math.min(Math.max(weight, 0), 0.999);
  if (w === 0) return values.slice();
  const out: number[] = [];
  let last = 0;
  let count = 0;
  for (const value of values) {
    if (!Number.isFinite(value)) {
      out.push(value);
      continue;
    }
    last = last * w + (1 - w) * value;
    count += 1;
    out.push(last / (1 - w ** count));
  }
  return out;
}

/**
 * A live point into a series ordered by step: appended when newer, replacing the value when the
 * step is already there (a resumed run may re-emit its last step), inserted in order otherwise.
 */
export function addPoint(series: Points, step: number, value: number): Points {
  const { steps, values } = series;
  const n = steps.length;
  if (n === 0 || step > steps[n - 1]!) return { steps: [...steps, step], values: [...values, value] };
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid]! < step) lo = mid + 1;
    else hi = mid;
  }
  if (steps[lo] === step) {
    const nextValues = values.slice();
    nextValues[lo] = value;
    return { steps, values: nextValues };
  }
  return { steps: [...steps.slice(0, lo), step, ...steps.slice(lo)], values: [...values.slice(0, lo), value, ...values.slice(lo)] };
}

/** Order metric keys for display: rewards and success first (what people look at), then the rest A–Z. */
export function orderKeys(keys: string[]): string[] {
  const rank = (key: string) => (key.startsWith('reward') ? 0 : key.startsWith('success') ? 1 : key.startsWith('loss') ? 2 : 3);
  return [...keys].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * Several runs' series on one x axis (uPlot wants aligned arrays): x is the sorted union of
 * their steps, and each run has null where it did not log that step (drawn as a gap-spanning line).
 */
export function alignSeries(series: Points[]): { steps: number[]; values: Array<Array<number | null>> } {
  const steps = [...new Set(series.flatMap((s) => s.steps))].sort((a, b) => a - b);
  const index = new Map(steps.map((step, i) => [step, i]));
  const values = series.map((s) => {
    const row: Array<number | null> = new Array<number | null>(steps.length).fill(null);
    s.steps.forEach((step, i) => (row[index.get(step)!] = s.values[i]!));
    return row;
  });
  return { steps, values };
}
