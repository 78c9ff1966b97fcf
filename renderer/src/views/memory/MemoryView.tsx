import { json } from '@codemirror/lang-json';
import CodeMirror from '@uiw/react-codemirror';
import { useEffect, useMemo, useState } from 'react';
import type { Memory } from '../../../../electron/contract';
import { useApi } from '../../api/context';
import { routeHref } from '../../app/routes';
import { navigate } from '../../app/useHashRoute';
import { EmptyState, ErrorNotice, Loading } from '../../components/Notice';
import { PageHeader } from '../../components/PageHeader';
import { RelativeTime } from '../../components/RelativeTime';
import { useCall } from '../../hooks/useCall';
import { useColorScheme } from '../../hooks/useColorScheme';
import { parseMemoryJson } from './memory-edit';
import { MemoryFamily } from './MemoryFamily';
import { RehearsePanel } from './RehearsePanel';

const jsonExtensions = [json()];

function MemoryEditor({ memory, onSaved }: { memory: Memory; onSaved: (next: Memory) => void }) {
  const api = useApi();
  const scheme = useColorScheme();
  const original = useMemo(() => JSON.stringify(memory.structured, null, 2), [memory]);
  const [structured, setStructured] = useState(original);
  const [text, setText] = useState(memory.text);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setStructured(original);
    setText(memory.text);
  }, [memory, original]);

  const parsed = parseMemoryJson(structured);
  const structuredChanged = structured !== original;
  const textChanged = text !== memory.text;

  const save = async () => {
    if (!parsed.ok) return;
    setBusy(true);
    setError(null);
    try {
      // A structured edit alone lets the engine re-render the text; an edited text is kept as written.
      const next = await api.call('memories.update', { id: memory.id, structured: structuredChanged ? parsed.value : undefined, text: textChanged ? text : undefined });
      onSaved(next);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="grid-2">
      <section className="card">
        <h3>Structured memory (JSON)</h3>
        <div className="code-view">
          <CodeMirror value={structured} extensions={jsonExtensions} onChange={setStructured} theme={scheme} aria-label="Structured memory JSON" />
        </div>
        {!parsed.ok && (
          <ul className="knob-issue" role="alert">
            {parsed.issues.map((issue) => (
              <li key={issue}>{issue}</li>
            ))}
          </ul>
        )}
      </section>
      <section className="card">
        <h3>As the policy sees it (text)</h3>
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={18} style={{ width: '100%' }} className="mono" aria-label="Memory text" />
        <div className="row" style={{ marginTop: 8 }}>
          <button type="button" className="button button-primary" disabled={busy || !parsed.ok || (!structuredChanged && !textChanged)} onClick={save}>
            {busy ? 'Saving…' : 'Save as new version'}
          </button>
          <span className="muted">Edits never overwrite: they store version {memory.version + 1} with this one as its parent.</span>
        </div>
        {error ? <ErrorNotice error={error} /> : null}
      </section>
    </div>
  );
}

function MemoryDetail({ id }: { id: number }) {
  const memory = useCall('memories.get', { id });
  if (memory.error) return <ErrorNotice error={memory.error} onRetry={memory.reload} />;
  if (!memory.data) return <Loading what={`memory ${id}`} />;
  const m = memory.data;
  return (
    <section data-testid="memory-detail">
      <p className="muted">
        Task <code>{m.taskId}</code> on {m.env} · version {m.version} ({m.source === 'edit' ? `edited from #${m.parentId}` : 'built from rehearsals'}) ·{' '}
        {m.structured.rehearsals.length} rehearsal{m.structured.rehearsals.length === 1 ? '' : 's'} · <RelativeTime time={m.createdAt} />
      </p>
      <MemoryEditor memory={m} onSaved={(next) => navigate(routeHref('memory', { id: String(next.id) }))} />
      <MemoryFamily key={m.id} memory={m} />
    </section>
  );
}

/** Rehearsal memories: browse, edit (validated against the contract's schema), keep every version. */
export function MemoryView({ memoryId }: { memoryId?: string }) {
  const list = useCall('memories.list', { limit: 200 });
  const selected = memoryId !== undefined ? Number(memoryId) : undefined;
  const validSelection = selected !== undefined && Number.isInteger(selected) && selected > 0;
  const items = list.data?.items ?? [];
  // No event announces new memories; a link to one (or a saved edit) refreshes the list.
  const { reload } = list;
  useEffect(() => reload(), [memoryId, reload]);
  return (
    <>
      <PageHeader title="Rehearsal memory" subtitle="What the policy imagined before acting for real, and your edits to it" />
      <details className="card rehearse-card" open={items.length === 0 || undefined}>
        <summary>
          <strong>Rehearse a task privately</strong> <span className="muted">— N imagined attempts, no real env calls, summarised into a memory</span>
        </summary>
        <RehearsePanel onDone={(result) => navigate(routeHref('memory', { id: String(result.memory.id) }))} />
      </details>
      {list.error ? <ErrorNotice error={list.error} onRetry={list.reload} /> : null}
      {!list.data && !list.error && <Loading what="memories" />}
      {list.data && items.length === 0 && !validSelection && (
        <EmptyState title="No rehearsal memories yet" testId="memory-empty">
          <p>
            A memory is built when a trained policy privately rehearses a task before acting in the real environment: its plans, predicted
            observations, answers and the problems it noticed. Rehearse a task above (or from a terminal); its memory then appears here to
            inspect, edit and commit.
          </p>
          <pre className="cli">
            <code>npx envace rehearse --run RUN_ID --env ENV --task TASK_ID --rehearsals 4 --mode parallel</code>
          </pre>
        </EmptyState>
      )}
      {(items.length > 0 || validSelection) && (
        <div className="split">
          <ul className="list" aria-label="Memories">
            {items.map((m) => (
              <li key={m.id}>
                <a href={routeHref('memory', { id: String(m.id) })} className="list-item" aria-current={m.id === selected ? 'true' : undefined}>
                  <span className="list-title">
                    #{m.id} <code>{m.taskId}</code> <span className="badge badge-neutral">v{m.version}</span>
                  </span>
                  <span className="muted">
                    {m.env} · {m.source} · <RelativeTime time={m.createdAt} />
                  </span>
                </a>
              </li>
            ))}
          </ul>
          <div>{validSelection ? <MemoryDetail id={selected} /> : <p className="muted">Pick a memory to inspect and edit it.</p>}</div>
        </div>
      )}
    </>
  );
}
