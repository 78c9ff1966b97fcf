import type { Run } from '../../../electron/contract';

/** Pick a trained run (its name and environment shown). */
export function RunSelect({
  runs,
  value,
  onChange,
  testId,
}: {
  runs: readonly Run[];
  value: string;
  onChange: (id: string) => void;
  testId?: string;
}) {
  return (
    <label className="field-inline">
      <span>Run</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        {runs.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name} ({r.env})
          </option>
        ))}
      </select>
    </label>
  );
}

/** Pick one of a run's checkpoints; with `latest` (the default) the empty value means "the latest". */
export function CheckpointSelect({
  run,
  value,
  onChange,
  testId,
  label = 'Checkpoint',
  latest = true,
}: {
  run: Run;
  value: string;
  onChange: (step: string) => void;
  testId?: string;
  label?: string;
  latest?: boolean;
}) {
  return (
    <label className="field-inline">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        {latest && <option value="">latest (step {run.checkpoints.at(-1)?.step ?? '–'})</option>}
        {run.checkpoints.map((c) => (
          <option key={c.step} value={c.step}>
            step {c.step}
          </option>
        ))}
      </select>
    </label>
  );
}
