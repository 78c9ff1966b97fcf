import type { MethodOutput } from '../../../../electron/contract';

/** The Evaluate view's pure parts: how a setting is described and how rehearsal compares with none. */

export type StoredEval = MethodOutput<'evals.list'>['items'][number];

const splitLabel = { train: 'train', heldout: 'held-out', ood: 'OOD' } as const;

/** "held-out · 4 parallel rehearsals, memory in the prompt" / "held-out · no rehearsal". */
export function describeSetting(e: Pick<StoredEval, 'split' | 'rehearsals' | 'mode' | 'commit' | 'memories'>): string {
  const rehearsed = `${e.rehearsals} ${e.mode} rehearsal${e.rehearsals === 1 ? '' : 's'}`;
  const commit = e.commit === 'plan' ? 'following the plan' : 'memory in the prompt';
  const how =
    e.memories === 'stored'
      ? `stored memories${e.rehearsals > 0 ? ` (${rehearsed} where none)` : ''}, ${commit}`
      : e.rehearsals === 0
        ? 'no rehearsal'
        : `${rehearsed}, ${commit}`;
  return `${splitLabel[e.split]} · ${how}`;
}

/**
 * Success gained by rehearsing: this evaluation minus the newest one without rehearsal of the
 * same run, checkpoint, split and task count. Null for a run without rehearsal, or when no such
 * baseline exists yet.
 */
export function rehearsalGain(e: StoredEval, all: StoredEval[]): number | null {
  if (e.rehearsals === 0 && e.memories !== 'stored') return null;
  const baseline = all
    .filter((b) => b.rehearsals === 0 && b.memories !== 'stored' && b.runId === e.runId && b.step === e.step && b.split === e.split && b.tasks === e.tasks)
    .sort((a, b) => b.createdAt - a.createdAt)[0];
  return baseline ? e.success - baseline.success : null;
}

/** A difference of two fractions in percentage points, signed: +12.5 pp, −3 pp, ±0 pp. */
export function formatPoints(delta: number | null): string {
  if (delta === null || !Number.isFinite(delta)) return '—';
  const pp = Math.round(delta * 1000) / 10;
  if (pp === 0) return '±0 pp';
  return `${pp > 0 ? '+' : '−'}${Math.abs(pp)} pp`;
}

export interface SettingLine {
  label: string;
  steps: number[];
  values: number[];
}

/**
 * Success by checkpoint step for one run, one line per evaluation setting (split, rehearsals,
 * mode, commit), so rehearsal and no rehearsal are compared along training. Where a step was
 * evaluated more than once with a setting, the newest result counts.
 */
export function successBySetting(items: StoredEval[], runId: string): SettingLine[] {
  const lines = new Map<string, Map<number, StoredEval>>();
  for (const e of items) {
    if (e.runId !== runId) continue;
    const label = describeSetting(e);
    const byStep = lines.get(label) ?? new Map<number, StoredEval>();
    const seen = byStep.get(e.step);
    if (!seen || e.createdAt > seen.createdAt) byStep.set(e.step, e);
    lines.set(label, byStep);
  }
  return [...lines.entries()]
    .map(([label, byStep]) => {
      const points = [...byStep.values()].sort((a, b) => a.step - b.step);
      return { label, steps: points.map((p) => p.step), values: points.map((p) => p.success) };
    })
    .sort((a, b) => a.label.localeCompare(b.label));
}
