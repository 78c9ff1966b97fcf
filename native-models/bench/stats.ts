// The one summary statistic the benchmarks report: this machine is shared and noisy.

/** The middle value (the upper one of the two for an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
