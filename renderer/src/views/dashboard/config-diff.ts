/** The knobs on which compared runs differ, as dotted paths with each run's value (the Dashboard's compare table). */
export interface DiffRow {
  path: string;
  /** One per run, in the order given; '—' where a run's config lacks the knob. */
  values: string[];
}

function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.set(prefix, typeof value === 'string' ? value : JSON.stringify(value));
}

/** Every leaf whose value is not the same in all `configs` (the run's name left out: it always differs). */
export function configDiff(configs: readonly unknown[]): DiffRow[] {
  const flat = configs.map((c) => {
    const out = new Map<string, string>();
    flatten(c, '', out);
    return out;
  });
  const paths = [...new Set(flat.flatMap((f) => [...f.keys()]))].filter((p) => p !== 'name').sort();
  return paths
    .map((path) => ({ path, values: flat.map((f) => f.get(path) ?? '—') }))
    .filter((row) => new Set(row.values).size > 1);
}
