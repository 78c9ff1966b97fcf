import { useState } from 'react';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { navigate } from '../../app/useHashRoute';
import { EmptyState, ErrorNotice } from '../../components/Notice';
import { useCall } from '../../hooks/useCall';
import { QUICKSTART_MODEL, quickstartCommand, quickstartEnv } from './quickstart';

/**
 * The empty Runs view: what to do next, in one click or one command. The click creates and starts the
 * recipe and opens its Dashboard, where setup, the curves and the before → after result card follow.
 */
export function QuickStart({ onCreated }: { onCreated: () => void }) {
  const api = useApi();
  // Ids only: listing builds every environment to count its tasks, seconds on a fresh engine.
  const envs = useCall('envs.ids', {});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const envIds = envs.data?.ids ?? [];
  const noEnvs = envs.data !== undefined && envIds.length === 0;
  const env = quickstartEnv(envIds);
  // The recommended recipe (engine/runs/recipes.ts): knobs known to train, not the contract's bare defaults.
  const recipe = useCall('runs.recipe', envs.data && !noEnvs ? { env, model: QUICKSTART_MODEL, variant: 'quick' } : null);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      if (!recipe.data) return;
      const run = await api.call('runs.create', { config: recipe.data.config, start: true });
      onCreated();
      navigate(routeHref('dashboard', { run: run.id }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <EmptyState title="No runs yet" testId="runs-empty">
      <p>
        A run trains a small agent on an environment&apos;s tools. The quickstart trains the quick recipe for the{' '}
        <code>{'preset' in QUICKSTART_MODEL ? QUICKSTART_MODEL.preset : QUICKSTART_MODEL.imported}</code> model preset, which shows learning in a few
        minutes (<strong>Configure a run…</strong> starts from the recommended one, which takes longer and keeps working when the prompt changes): a supervised warm start
        on expert demonstrations (<code>sft</code>), then world rehearsal (<code>envace</code>). It is evaluated on held-out tasks before the
        first step and as it trains, and ends on a result card: held-out success before → after, and the checkpoint to keep.
      </p>
      {recipe.data && (
        <p className="muted" data-testid="quickstart-recipe">
          Recipe <strong>{recipe.data.id}</strong>: {recipe.data.config.sft.steps} SFT steps, then {recipe.data.config.steps} rehearsal steps.{' '}
          {recipe.data.notes}
          {recipe.data.expected.minutes !== null ? ` About ${recipe.data.expected.minutes} minutes here` : ''}
          {recipe.data.expected.heldoutSuccess !== null ? `, held-out success about ${Math.round(recipe.data.expected.heldoutSuccess * 100)} % (measured ${recipe.data.expected.measured}).` : recipe.data.expected.minutes !== null ? '.' : ''}
        </p>
      )}
      {noEnvs ? (
        <p className="muted" data-testid="quickstart-no-envs">
          No environments are registered with this engine yet — the built-in environments arrive with the environments issue. Until then a run
          has nothing to train on.
        </p>
      ) : (
        <p>
          Environment: <strong>{envs.data ? env : '…'}</strong>
          {!envs.data && <span className="spinner" aria-label="loading the environments" />}
        </p>
      )}
      <div className="row">
        <button type="button" className="button button-primary" onClick={create} disabled={busy || !recipe.data || noEnvs} data-testid="quickstart">
          {busy ? 'Starting…' : 'Train the quickstart run'}
        </button>
        <a className="button" href="#/new">
          Configure a run…
        </a>
      </div>
      <p className="muted">
        The run starts at once, here, and its Dashboard opens with live progress; it is stored with its resolved config, so you can stop,
        resume or duplicate it from this table. <strong>Configure a run…</strong> starts from the recommended recipe with every knob to change.
      </p>
      <p className="muted">Or from a terminal:</p>
      <pre className="cli" aria-label="Equivalent command line">
        <code>{quickstartCommand(env, QUICKSTART_MODEL, recipe.data?.id.endsWith('/quick') ?? false)}</code>
      </pre>
      {envs.error ? <ErrorNotice error={envs.error} onRetry={envs.reload} /> : null}
      {recipe.error ? <ErrorNotice error={recipe.error} onRetry={recipe.reload} /> : null}
      {error ? <ErrorNotice error={error} /> : null}
    </EmptyState>
  );
}
