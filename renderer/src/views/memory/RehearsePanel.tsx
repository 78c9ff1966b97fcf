import { CheckpointSelect, RunSelect } from '../../components/RunCheckpointFields';
import { useMemo, useState, type FormEvent } from 'react';
import type { MethodOutput } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { JobProgress } from '../../components/JobProgress';
import { ErrorNotice, Loading } from '../../components/Notice';
import { useCall } from '../../hooks/useCall';
import { useThrottledEvents } from '../../hooks/useEvents';
import { useJobWatch, type JobWatch } from '../../hooks/useJobWatch';
import { exportableRuns } from '../export/export-form';

type RehearseOutput = MethodOutput<'memories.rehearse'>;

/**
 * Run N private rehearsals of one task with a trained run's policy: no real env calls, the
 * policy imagines each observation. The memory built from them opens when they finish.
 */
export function RehearsePanel({ onDone }: { onDone: (result: RehearseOutput) => void }) {
  const api = useApi();
  const runs = useCall('runs.list', { limit: 200 });
  useThrottledEvents(['run.status'], runs.reload, 2000);
  const candidates = exportableRuns(runs.data?.items ?? []);
  const [runId, setRunId] = useState('');
  const run = candidates.find((r) => r.id === runId) ?? candidates[0];
  const [step, setStep] = useState('');
  const [taskId, setTaskId] = useState('');
  // As typed, so an out-of-range count is shown and explained rather than silently clamped.
  const [rehearsalsText, setRehearsalsText] = useState('4');
  const [mode, setMode] = useState<'parallel' | 'sequential'>('parallel');
  const [temperature, setTemperature] = useState('1');
  const [watch, setWatch] = useState<JobWatch | null>(null);
  const [error, setError] = useState<unknown>(null);
  const job = useJobWatch(watch);
  // Every task of this run's world (its world size and seed), as suggestions.
  const tasks = useCall('envs.tasks', run ? { id: run.env, runId: run.id, limit: 1000 } : null);
  const suggestions = useMemo(() => (tasks.data?.items ?? []).map((t) => t.id), [tasks.data]);
  const temp = Number(temperature);
  const rehearsals = Number(rehearsalsText);
  const tempOk = temperature.trim() !== '' && Number.isFinite(temp) && temp >= 0 && temp <= 5;
  const countOk = Number.isInteger(rehearsals) && rehearsals >= 1 && rehearsals <= 16;
  // Why the button is off, in words beside it (the engine's limits: memories.rehearse).
  const problems = [
    taskId.trim() === '' ? 'pick a task' : null,
    countOk ? null : `rehearsals must be a whole number from 1 to 16 (got "${rehearsalsText}")`,
    tempOk ? null : `temperature must be between 0 and 5 (got "${temperature}")`,
  ].filter((p): p is string => p !== null);
  const valid = run !== undefined && problems.length === 0;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!valid || !run || watch) return;
    setWatch({ kind: 'rehearse', runId: run.id, since: Date.now() });
    setError(null);
    try {
      onDone(
        await api.call('memories.rehearse', {
          runId: run.id,
          ...(step === '' ? {} : { step: Number(step) }),
          taskId: taskId.trim(),
          rehearsals,
          mode,
          temperature: temp,
        }),
      );
    } catch (e) {
      setError(e);
    } finally {
      setWatch(null);
    }
  };

  if (runs.error) return <ErrorNotice error={runs.error} onRetry={runs.reload} />;
  if (!runs.data) return <Loading what="runs" />;
  if (candidates.length === 0) {
    return (
      <p className="muted" data-testid="rehearse-no-runs">
        Private rehearsals need a trained policy: train a run until it writes a checkpoint, then rehearse its tasks here.
      </p>
    );
  }
  return (
    <form className="rehearse-form" onSubmit={submit} data-testid="rehearse-form">
      <div className="filters">
        <RunSelect runs={candidates} value={run?.id ?? ''} onChange={(id) => (setRunId(id), setStep(''))} testId="rehearse-run" />
        {run && <CheckpointSelect run={run} value={step} onChange={setStep} />}
        <label className="field-inline">
          <span>Task</span>
          <input
            type="text"
            value={taskId}
            onChange={(e) => setTaskId(e.target.value)}
            list="rehearse-task-ids"
            placeholder="task id"
            data-testid="rehearse-task"
          />
          <datalist id="rehearse-task-ids">
            {suggestions.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
        </label>
      </div>
      <div className="filters">
        <label className="field-inline">
          <span>Rehearsals</span>
          <input
            type="number"
            min={1}
            max={16}
            value={rehearsalsText}
            onChange={(e) => setRehearsalsText(e.target.value)}
            aria-invalid={countOk ? undefined : true}
            data-testid="rehearse-count"
          />
        </label>
        <fieldset className="segmented" aria-label="Rehearsal mode">
          {(['parallel', 'sequential'] as const).map((m) => (
            <label
              key={m}
              title={m === 'parallel' ? 'independent rehearsals from the same prompt' : 'each rehearsal sees the memory of the ones before'}
            >
              <input type="radio" name="rehearse-mode" checked={mode === m} onChange={() => setMode(m)} />
              {m}
            </label>
          ))}
        </fieldset>
        <label className="field-inline">
          <span>Temperature</span>
          <input
            type="text"
            inputMode="decimal"
            value={temperature}
            onChange={(e) => setTemperature(e.target.value)}
            aria-invalid={tempOk ? undefined : true}
            data-testid="rehearse-temperature"
          />
        </label>
        <button type="submit" className="button button-primary" disabled={!valid || watch !== null} data-testid="rehearse-submit">
          Rehearse privately
        </button>
      </div>
      {problems.length > 0 && (
        <p className="muted" data-testid="rehearse-problems">
          Before rehearsing: {problems.join('; ')}.
        </p>
      )}
      {watch && <JobProgress job={job} since={watch.since} what={`${rehearsals} ${mode} rehearsals of ${taskId.trim()}`} />}
      {error ? <ErrorNotice error={error} /> : null}
    </form>
  );
}
