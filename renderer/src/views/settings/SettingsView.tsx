import { useEffect, useState, type FormEvent } from 'react';
import { EnvSplit, ModelRef, type Settings, type SettingsDefaults } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { formatBytes } from '../../format/units';
import { useCall } from '../../hooks/useCall';

const presets = ModelRef.options[0].shape.preset.options;

/** The limit field as typed: empty is "every task"; anything else must be a whole number in range. */
function parseLimit(text: string): { ok: true; value: number | null } | { ok: false; why: string } {
  if (text.trim() === '') return { ok: true, value: null };
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= 10_000 ? { ok: true, value: n } : { ok: false, why: `the task limit must be a whole number from 1 to 10,000, or empty for every task (got "${text}")` };
}

function DataHome({ settings }: { settings: Settings }) {
  return (
    <section className="card" aria-labelledby="settings-home">
      <h2 id="settings-home">Data home</h2>
      <dl className="facts">
        <dt>Folder</dt>
        <dd className="mono" data-testid="settings-home">
          {settings.dataHome}
        </dd>
        <dt>Size</dt>
        <dd data-testid="settings-home-size">{settings.homeBytes === null ? 'could not be read' : formatBytes(settings.homeBytes)}</dd>
        <dt>Free disk</dt>
        <dd data-testid="settings-free">{settings.freeBytes === null ? 'not reported on this platform' : formatBytes(settings.freeBytes)}</dd>
        <dt>Access</dt>
        <dd data-testid="settings-access">
          {settings.access.writable
            ? 'this engine owns the data home (it holds the lease)'
            : `read-only: in use by ${settings.access.owner ?? 'another engine'}; settings can be changed once that process stops`}
        </dd>
        <dt>Settings file</dt>
        <dd className="mono">{settings.settingsFile}</dd>
      </dl>
      <p className="muted">
        The data home is chosen when the engine starts (ENVACE_HOME, or --home for the CLI); runs, models, exports and these settings live in it.
      </p>
    </section>
  );
}

function DefaultsForm({ settings, onSaved }: { settings: Settings; onSaved: (s: Settings) => void }) {
  const api = useApi();
  const envs = useCall('envs.ids', {});
  const models = useCall('models.list', {});
  const [draft, setDraft] = useState<SettingsDefaults>(settings.defaults);
  const [limit, setLimit] = useState(settings.defaults.evaluate.limit === null ? '' : String(settings.defaults.evaluate.limit));
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => setSaved(false), [draft, limit]);
  const parsed = parseLimit(limit);
  const envIds = envs.data?.ids ?? [];
  const imported = (models.data?.items ?? []).map((m) => `imported:${m.name}`);
  // A stored default no longer offered (a removed env or model) stays visible, marked, so it can be changed.
  const envOptions = draft.newRun.env && !envIds.includes(draft.newRun.env) && envs.data ? [...envIds, draft.newRun.env] : envIds;
  const modelOptions = [...presets, ...imported];
  const readOnly = !settings.access.writable;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!parsed.ok || readOnly) return;
    setSaving(true);
    setError(null);
    try {
      onSaved(await api.call('settings.set', { defaults: { ...draft, evaluate: { ...draft.evaluate, limit: parsed.value } } }));
      setSaved(true);
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="card" aria-labelledby="settings-defaults" onSubmit={save} data-testid="settings-defaults">
      <h2 id="settings-defaults">Defaults</h2>
      <p className="muted">
        What <a href={routeHref('new')}>New run</a> and <a href={routeHref('evaluate')}>Evaluate</a> start from before you choose; a link that names a run
        or a duplicated run's own config wins over them.
      </p>
      <fieldset className="form-rows">
        <legend>New run</legend>
        <label className="field-inline">
          Environment
          <select value={draft.newRun.env ?? ''} onChange={(e) => setDraft({ ...draft, newRun: { ...draft.newRun, env: e.target.value || null } })} data-testid="settings-env">
            <option value="">(none: pick each time)</option>
            {envOptions.map((id) => (
              <option key={id} value={id}>
                {id}
                {envs.data && !envIds.includes(id) ? ' (no longer registered)' : ''}
              </option>
            ))}
          </select>
        </label>
        {envs.error ? <ErrorNotice error={envs.error} onRetry={envs.reload} /> : null}
        <label className="field-inline">
          Model
          <select value={draft.newRun.model ?? ''} onChange={(e) => setDraft({ ...draft, newRun: { ...draft.newRun, model: e.target.value || null } })} data-testid="settings-model">
            <option value="">(none: pick each time)</option>
            {[...modelOptions, ...(draft.newRun.model && !modelOptions.includes(draft.newRun.model) ? [draft.newRun.model] : [])].map((m) => (
              <option key={m} value={m}>
                {m.startsWith('imported:') ? `imported: ${m.slice('imported:'.length)}` : `preset: ${m}`}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      <fieldset className="form-rows">
        <legend>Evaluate</legend>
        <label className="field-inline">
          Split
          <select value={draft.evaluate.split} onChange={(e) => setDraft({ ...draft, evaluate: { ...draft.evaluate, split: EnvSplit.parse(e.target.value) } })} data-testid="settings-split">
            {EnvSplit.options.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          Task limit
          <input type="text" inputMode="numeric" placeholder="every task" value={limit} onChange={(e) => setLimit(e.target.value)} aria-invalid={!parsed.ok} data-testid="settings-limit" />
        </label>
      </fieldset>
      {!parsed.ok && (
        <p className="notice notice-error" role="alert" data-testid="settings-problem">
          {parsed.why}
        </p>
      )}
      {readOnly && <p className="notice notice-warn">Read-only: another engine owns this data home, so these defaults cannot be stored from here now.</p>}
      <div className="row">
        <button type="submit" className="button button-primary" disabled={saving || readOnly || !parsed.ok} data-testid="settings-save">
          {saving ? 'Saving…' : 'Save defaults'}
        </button>
        {saved && (
          <span role="status" data-testid="settings-saved">
            Saved to the data home.
          </span>
        )}
      </div>
      {error ? <ErrorNotice error={error} /> : null}
    </form>
  );
}

/** The data home (where, how big, who owns it) and the defaults forms start from. */
export function SettingsView() {
  const settings = useCall('settings.get', {});
  const [stored, setStored] = useState<Settings | null>(null);
  const data = stored ?? settings.data;
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle="The data home and the defaults New run and Evaluate start from"
        actions={
          <button type="button" className="button" onClick={() => (setStored(null), settings.reload())}>
            Refresh
          </button>
        }
      />
      {settings.error ? <ErrorNotice error={settings.error} onRetry={settings.reload} /> : null}
      {!data && !settings.error && <Loading what="settings (measuring the data home)" />}
      {data && (
        <div className="grid-2">
          <DataHome settings={data} />
          <DefaultsForm settings={data} onSaved={setStored} />
        </div>
      )}
    </>
  );
}
