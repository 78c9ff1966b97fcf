/** The runs overlaid on the watched one: `#/dashboard?run=a&compare=b,c`. `b, c,,b,a` → ['b', 'c'] for run a. */
export function parseCompare(param: string | undefined, runId: string | undefined): string[] {
  return [...new Set((param ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '' && s !== runId))];
}
