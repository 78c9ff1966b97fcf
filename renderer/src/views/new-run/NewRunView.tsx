import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ContractError } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { navigate, useHashRoute } from '../../app/useHashRoute';
import { ErrorNotice } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { useCall } from '../../hooks/useCall';
import { duplicateValues } from '../runs/duplicate';
import { ConfigFieldRow } from './ConfigField';
import { PreflightPanel } from './PreflightPanel';
import { changedPaths, configFields, defaultValues, groups, serverIssues, validateForm, type FieldIssues, type FormValues } from './config-form';

const fields = configFields();

export function NewRunView() {
  const api = useApi();
  // Ids only: listing builds every environment to count its tasks, seconds on a fresh engine.
  const envs = useCall('envs.ids', {});
  const envIds = useMemo(() => envs.data?.ids ?? [], [envs.data]);
  const models = useCall('models.list', {});
  const modelNames = useMemo(() => models.data?.items.map((m) => m.name) ?? [], [models.data]);
  const [values, setValues] = useState<FormValues>(() => defaultValues(fields));
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [remoteIssues, setRemoteIssues] = useState<FieldIssues>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [startNow, setStartNow] = useState(true);
  const [preflight, setPreflight] = useState<Awaited<ReturnType<typeof api.call<'runs.preflight'>>> | null>(null);
  // "Duplicate and edit" (#/new?from=RUN): start from every knob of that run's stored config.
  const from = useHashRoute().params.from;
  const source = useCall('runs.get', from ? { id: from } : null);
  useEffect(() => {
    if (source.data) setValues(duplicateValues(fields, source.data));
  }, [source.data]);

  const validation = useMemo(() => validateForm(fields, values), [values]);
  const changed = useMemo(() => changedPaths(fields, values), [values]);
  const localIssues = validation.ok ? {} : validation.issues;
  const issueFor = (path: string) => remoteIssues[path] ?? (submitted || touched.has(path) ? localIssues[path] : undefined);
  const issueCount = Object.keys(localIssues).length;

  const check = async () => {
    setSubmitted(true);
    setError(null);
    if (!validation.ok) return;
    try {
      setPreflight(await api.call('runs.preflight', { config: validation.config }));
    } catch (e) {
      setError(e);
    }
  };

  const update = (path: string, value: FormValues[string]) => {
    setPreflight(null);
    setValues((v) => ({ ...v, [path]: value }));
    setTouched((t) => new Set(t).add(path));
    setRemoteIssues(({ [path]: _dropped, ...rest }) => rest);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    setError(null);
    if (!validation.ok) {
      document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    setBusy(true);
    try {
      const run = await api.call('runs.create', { config: validation.config, start: startNow });
      navigate(startNow ? routeHref('dashboard', { run: run.id }) : routeHref('runs'));
    } catch (e) {
      if (e instanceof ContractError && e.issues) setRemoteIssues(serverIssues(fields, e.issues));
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-label="New run configuration">
      <PageHeader
        title="New run"
        subtitle="Every knob with its default. The config is checked against the same schema the engine uses."
        actions={
          <>
            <button type="button" className="button" onClick={() => setValues(defaultValues(fields, { env: values.env ?? '' }))} disabled={changed.size === 0}>
              Reset to defaults
            </button>
            <button type="button" className="button" onClick={check} data-testid="preflight-check">
              Pre-flight check
            </button>
            <button type="submit" className="button button-primary" disabled={busy} data-testid="create-run">
              {busy ? 'Creating…' : 'Create run'}
            </button>
          </>
        }
      />
      <label className="notice notice-info start-toggle">
        <input type="checkbox" checked={startNow} onChange={(e) => setStartNow(e.target.checked)} data-testid="start-now" />
        <span>
          Start training right away (queued behind any running job) and open its Dashboard. Unticked, the run is stored as <em>created</em> and
          waits for <strong>Start</strong> in the Runs table.
        </span>
      </label>
      {envs.data && envIds.length === 0 && (
        <p className="notice notice-warn">
          No environments are registered with this engine yet (they arrive with the environments issue), so the engine will refuse any environment
          name for now.
        </p>
      )}
      {submitted && issueCount > 0 && (
        <p className="notice notice-error" role="alert">
          {issueCount} field{issueCount === 1 ? ' needs' : 's need'} attention before the run can be created.
        </p>
      )}
      {source.data && (
        <p className="notice notice-info" data-testid="duplicate-of">
          Every knob below comes from <strong>{source.data.name}</strong> ({source.data.id}).
          {source.data.error ? ` It ${source.data.status === 'failed' ? 'failed' : 'stopped'}: ${source.data.error}` : ''}
        </p>
      )}
      {source.error ? <ErrorNotice error={source.error} /> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {preflight && <PreflightPanel result={preflight} />}
      {groups.map((group) => (
        <fieldset key={group.id} className="card knob-group">
          <legend>{group.title}</legend>
          {fields
            .filter((f) => f.group === group.id)
            .map((field) => (
              <ConfigFieldRow
                key={field.path}
                field={field}
                value={values[field.path] ?? field.defaultValue}
                issue={issueFor(field.path)}
                changed={changed.has(field.path)}
                envIds={envIds}
                modelNames={modelNames}
                onChange={(v) => update(field.path, v)}
              />
            ))}
        </fieldset>
      ))}
    </form>
  );
}
