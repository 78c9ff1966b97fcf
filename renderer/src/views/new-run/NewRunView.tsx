import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { ContractError } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { navigate, useHashRoute } from '../../app/useHashRoute';
import { Elapsed } from '../../components/Elapsed';
import { ErrorNotice } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { useCall } from '../../hooks/useCall';
import { useSettingsDefaults } from '../../hooks/useSettingsDefaults';
import { configValues, duplicateValues } from '../runs/duplicate';
import { ConfigFieldRow } from './ConfigField';
import { PreflightPanel } from './PreflightPanel';
import { changedPaths, configFields, defaultValues, groups, serverIssues, validateForm, type FieldIssues, type FormValues } from './config-form';
import { algoOf, applyRecipe, modelRefOf, showsInBasic } from './recipe-form';

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
  // Pre-flight builds the environment and records a sample of demonstrations: seconds to minutes on a big task set.
  const [checkingSince, setCheckingSince] = useState<number | null>(null);
  const [preflight, setPreflight] = useState<Awaited<ReturnType<typeof api.call<'runs.preflight'>>> | null>(null);
  // "Duplicate and edit" (#/new?from=RUN): start from every knob of that run's stored config.
  const from = useHashRoute().params.from;
  const source = useCall('runs.get', from ? { id: from } : null);
  // What "modified" is measured against: the duplicated run, else the recipe for the chosen env × model, else the schema's defaults.
  const [baseline, setBaseline] = useState<FormValues | undefined>(undefined);
  const [advanced, setAdvanced] = useState(false);
  useEffect(() => {
    if (!source.data) return;
    setValues(duplicateValues(fields, source.data));
    setBaseline(configValues(fields, source.data.config));
  }, [source.data]);
  // A new run starts from the recommended recipe (engine/runs/recipes.ts) for its env × model: knobs known
  // to train, with their expected time and held-out figure; knobs set by hand stay as typed.
  const chosenEnv = String(values.env ?? '');
  const chosenModel = modelRefOf(values.model);
  // Once the person picks a method, its recipe: the SFT stage alone, or RL from a checkpoint (engine/runs/rl-recipes.ts).
  const chosenAlgo = touched.has('algo') ? algoOf(values.algo) : undefined;
  const recipe = useCall(
    'runs.recipe',
    !from && chosenEnv && chosenModel ? { env: chosenEnv, model: chosenModel, ...(chosenAlgo ? { algo: chosenAlgo } : {}) } : null,
  );
  const touchedNow = useRef(touched);
  touchedNow.current = touched;
  // The Settings view's defaults pick the env and model once, unless the person already did (or duplicates a run).
  const stored = useSettingsDefaults(!from);
  const defaultsApplied = useRef(false);
  useEffect(() => {
    const d = stored?.newRun;
    if (!d || !envs.data || defaultsApplied.current) return;
    defaultsApplied.current = true;
    const pick: FormValues = {};
    if (d.env && envIds.includes(d.env) && !touchedNow.current.has('env')) pick.env = d.env;
    if (d.model && !touchedNow.current.has('model')) pick.model = d.model;
    if (Object.keys(pick).length) setValues((v) => ({ ...v, ...pick }));
  }, [stored, envs.data, envIds]);
  useEffect(() => {
    if (!recipe.data) return;
    const config = recipe.data.config;
    setValues((v) => applyRecipe(fields, config, v, touchedNow.current));
    setBaseline(configValues(fields, config));
    setPreflight(null);
  }, [recipe.data]);

  const validation = useMemo(() => validateForm(fields, values), [values]);
  const changed = useMemo(() => changedPaths(fields, values, baseline), [values, baseline]);
  const localIssues = validation.ok ? {} : validation.issues;
  const issueFor = (path: string) => remoteIssues[path] ?? (submitted || touched.has(path) ? localIssues[path] : undefined);
  const issueCount = Object.keys(localIssues).length;

  const check = async () => {
    setSubmitted(true);
    setError(null);
    if (!validation.ok) return;
    setCheckingSince(Date.now());
    try {
      setPreflight(await api.call('runs.preflight', { config: validation.config }));
    } catch (e) {
      setError(e);
    } finally {
      setCheckingSince(null);
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
        subtitle="Starts from the recommended recipe for the environment and model you pick; checked against the same schema the engine uses."
        actions={
          <>
            {baseline && (
              <button
                type="button"
                className="button"
                onClick={() => {
                  setValues({ ...baseline, name: values.name ?? '', env: values.env ?? '', model: values.model ?? baseline.model! });
                  setTouched(new Set(['env', 'model']));
                }}
                disabled={changed.size === 0}
                data-testid="reset-recipe"
              >
                {from ? 'Reset to the original' : 'Reset to the recipe'}
              </button>
            )}
            <button type="button" className="button" onClick={() => setValues(defaultValues(fields, { env: values.env ?? '' }))}>
              Contract defaults
            </button>
            <button type="button" className="button" onClick={check} disabled={checkingSince !== null} data-testid="preflight-check">
              {checkingSince !== null ? 'Checking…' : 'Pre-flight check'}
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
          Start training right away (queued behind any running job) and open its Dashboard. Unticked, the run is stored as <em>created</em> and waits
          for <strong>Start</strong> in the Runs table.
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
      {!from && !chosenEnv && (
        <p className="notice notice-info" data-testid="recipe-pick-env">
          Pick an environment and a model under <strong>Environment &amp; model</strong>: the form then starts from the recommended recipe for that
          pair, the knobs known to train.
        </p>
      )}
      {!from && recipe.data && (
        <div className="notice notice-info recipe-banner" data-testid="recipe-banner">
          <p>
            <strong>Recipe {recipe.data.id}</strong>
            {recipe.data.expected.minutes !== null && <> · about {recipe.data.expected.minutes} min here</>}
            {recipe.data.expected.heldoutSuccess !== null && <> · held-out success about {Math.round(recipe.data.expected.heldoutSuccess * 100)} %</>}
            {' · '}
            <span data-testid="recipe-modified">
              {changed.size === 0 ? 'unmodified' : `${changed.size} knob${changed.size === 1 ? '' : 's'} modified`}
            </span>
          </p>
          <p className="muted">
            {recipe.data.notes}{' '}
            {recipe.data.expected.measured
              ? `Measured ${recipe.data.expected.measured}.`
              : 'Not measured yet for this pair: the figures are not known.'}
          </p>
        </div>
      )}
      {recipe.error ? <ErrorNotice error={recipe.error} onRetry={recipe.reload} /> : null}
      {source.error ? <ErrorNotice error={source.error} /> : null}
      {error ? <ErrorNotice error={error} /> : null}
      {checkingSince !== null && (
        <p className="notice notice-info" data-testid="preflight-running" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> Pre-flight: building the environment, recording a sample of demonstrations and
          checking the model, context, device and disk · <Elapsed since={checkingSince} /> so far (about a minute for 8,000 training tasks on
          two cores).
        </p>
      )}
      {preflight && <PreflightPanel result={preflight} />}
      <div className="row knob-view-toggle">
        <button type="button" className="button" onClick={() => setAdvanced((a) => !a)} aria-expanded={advanced} data-testid="advanced-toggle">
          {advanced ? 'Show the basic knobs' : `Show every knob (${fields.length})`}
        </button>
        <span className="muted">
          {advanced
            ? 'Every knob of the run config, grouped; a dot marks one changed from the baseline.'
            : 'The basic knobs, plus any changed from the recipe or needing attention; the rest come from the recipe.'}
        </span>
      </div>
      {groups.map((group) => {
        const shown = fields.filter((f) => f.group === group.id && (advanced || showsInBasic(f.path, changed, issueFor(f.path))));
        if (shown.length === 0) return null;
        return (
          <fieldset key={group.id} className="card knob-group">
            <legend>{group.title}</legend>
            {shown.map((field) => (
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
        );
      })}
    </form>
  );
}
