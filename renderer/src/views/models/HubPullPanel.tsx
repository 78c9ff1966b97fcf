import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ContractError, type ModelsPullOutput, type ModelsPullProgress } from '../../../../electron/contract';
import type { HubSearchHit } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { formatBytes, formatDuration, formatPercent } from '../../format/units';

/** OWNER/NAME or OWNER/NAME@REVISION typed in the search box: offered as a direct pull. */
const REPO_ID = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*(@[^\s@]+)?$/;

/** The engine's own words: they name HF_TOKEN, the endpoint, the cached models. */
const messageOf = (e: unknown) => (e instanceof ContractError || e instanceof Error ? e.message : String(e));

/**
 * Search the Hugging Face Hub (the engine's HF_ENDPOINT) and pull a model: models.pull downloads into
 * the data home's cache and imports it, reporting bytes through models.pull.progress events.
 */
export function HubPullPanel({ onPulled }: { onPulled?: (r: ModelsPullOutput) => void }) {
  const api = useApi();
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState<{ query: string; endpoint: string; items: HubSearchHit[] } | null>(null);
  const [searching, setSearching] = useState(false);
  const [pulling, setPulling] = useState<{ repo: string; pullId: string } | null>(null);
  const [progress, setProgress] = useState<ModelsPullProgress | null>(null);
  const [done, setDone] = useState<ModelsPullOutput | null>(null);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);

  useEffect(() => {
    if (!pulling) return;
    return api.on('models.pull.progress', (p) => p.pullId === pulling.pullId && setProgress(p));
  }, [api, pulling]);

  const search = async (e: FormEvent) => {
    e.preventDefault();
    const q = query.trim();
    if (!q) return;
    setSearching(true);
    setError(null);
    try {
      setSearched({ query: q, ...(await api.call('models.search', { query: q.replace(/@.*$/, '') })) });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setSearching(false);
    }
  };

  const pull = async (repo: string) => {
    const pullId = `gui-${Date.now().toString(36)}-${++seq.current}`;
    setPulling({ repo, pullId });
    setProgress(null);
    setDone(null);
    setError(null);
    try {
      const r = await api.call('models.pull', { repo, pullId });
      setDone(r);
      onPulled?.(r);
    } catch (err) {
      setError(`${repo}: ${messageOf(err)}`);
    } finally {
      setPulling(null);
    }
  };

  const direct = REPO_ID.test(query.trim()) && !searched?.items.some((h) => h.id === query.trim());
  return (
    <section className="card" aria-labelledby="hub-pull-title" data-testid="hub-pull">
      <h2 id="hub-pull-title">Pull from the Hugging Face Hub</h2>
      <form className="row" onSubmit={search} role="search">
        <label htmlFor="hub-query">Search</label>
        <input id="hub-query" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="SmolLM2, Qwen2.5-0.5B-Instruct or OWNER/NAME@REVISION" maxLength={100} />
        <button type="submit" className="button" disabled={searching || !query.trim()} data-testid="hub-search">
          {searching ? 'Searching…' : 'Search'}
        </button>
        {direct && (
          <button type="button" className="button" onClick={() => void pull(query.trim())} disabled={pulling !== null} data-testid="hub-pull-direct">
            Pull {query.trim()}
          </button>
        )}
      </form>
      {pulling && (
        <div className="job-progress" role="status" data-testid="hub-pull-progress">
          <strong>
            {progress?.phase === 'importing' ? 'Importing' : progress?.phase === 'downloading' ? 'Downloading' : 'Resolving'} {pulling.repo}…
          </strong>
          {progress?.fraction !== null && progress?.fraction !== undefined && (
            <p className="row">
              <progress max={1} value={progress.fraction} aria-label={`${pulling.repo} download`} /> {formatPercent(progress.fraction)}
              <span className="muted">
                {formatBytes(progress.doneBytes)} of {formatBytes(progress.totalBytes)}
                {progress.file ? ` · ${progress.file}` : ''}
              </span>
              {progress.etaMs !== null && <span className="muted" data-testid="hub-pull-eta">about {formatDuration(progress.etaMs)} left</span>}
            </p>
          )}
        </div>
      )}
      {error && (
        <p className="notice notice-error" role="alert" data-testid="hub-pull-error">
          {error}
        </p>
      )}
      {done && (
        <p className="notice" data-testid="hub-pull-done">
          Imported <strong>{done.model.name}</strong> from {done.repo}@{done.revision} (commit {done.commit.slice(0, 12)},{' '}
          {done.fromCache ? 'from the cache' : `${formatBytes(done.downloadedBytes)} downloaded`}).{done.note ? ` ${done.note}.` : ''} New runs can pick it now.
        </p>
      )}
      {!searched && !done && (
        <p className="muted" data-testid="hub-empty">
          Search the Hub for a Llama, Qwen2 or Qwen3 model with safetensors weights and pull it; it is imported as a model runs can start from. Gated models need HF_TOKEN set where the engine runs;
          HF_ENDPOINT points it at another Hub.
        </p>
      )}
      {searched && searched.items.length === 0 && (
        <p className="muted" data-testid="hub-no-results">
          No text-generation models with safetensors weights match “{searched.query}” on {searched.endpoint}.
        </p>
      )}
      {searched && searched.items.length > 0 && (
        <table className="table" data-testid="hub-results">
          <thead>
            <tr>
              <th>Model</th>
              <th>Downloads</th>
              <th>Likes</th>
              <th>Access</th>
              <th aria-label="Pull" />
            </tr>
          </thead>
          <tbody>
            {searched.items.map((h) => (
              <tr key={h.id} data-repo={h.id}>
                <td className="mono">{h.id}</td>
                <td>{h.downloads.toLocaleString('en-US')}</td>
                <td>{h.likes.toLocaleString('en-US')}</td>
                <td>{h.gated ? 'gated (HF_TOKEN)' : 'open'}</td>
                <td>
                  <button type="button" className="button button-small" onClick={() => void pull(h.id)} disabled={pulling !== null}>
                    Pull
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
