/**
 * Remaining time from progress so far. Rate is measured over a sliding window so a slow
 * start (compiling graphs, spawning servers) does not skew the estimate for long.
 */
export class EtaEstimator {
  private readonly samples: Array<{ t: number; f: number }> = [];
  constructor(private readonly windowSize = 20) {}

  update(fraction: number, now = Date.now()): number | null {
    this.samples.push({ t: now, f: fraction });
    if (this.samples.length > this.windowSize) this.samples.shift();
    if (fraction >= 1) return 0;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const df = last.f - first.f;
    const dt = last.t - first.t;
    if (this.samples.length < 2 || df <= 0 || dt <= 0) return null;
    return Math.round(((1 - fraction) * dt) / df);
  }
}
