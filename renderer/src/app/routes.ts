/** The views of workbench.md, in sidebar order, and the hash routes that reach them. */
export const views = [
  { id: 'runs', label: 'Runs', hint: 'Every run with status and progress' },
  { id: 'new', label: 'New run', hint: 'Configure and create a run' },
  { id: 'dashboard', label: 'Dashboard', hint: 'Live curves of a run' },
  { id: 'trajectories', label: 'Trajectories', hint: 'Rollouts turn by turn' },
  { id: 'memory', label: 'Memory', hint: 'Rehearsal memories' },
  { id: 'evaluate', label: 'Evaluate', hint: 'Held-out evaluation' },
  { id: 'export', label: 'Export', hint: 'Write a model file' },
  { id: 'models', label: 'Models', hint: 'Import a GGUF, pull from the Hub' },
  { id: 'envs', label: 'Environments', hint: 'Tools, schemas and tasks' },
  { id: 'system', label: 'System', hint: 'Versions, providers, data home' },
  { id: 'settings', label: 'Settings', hint: 'Data home and defaults' },
] as const;

export type ViewId = (typeof views)[number]['id'];

export interface Route {
  view: ViewId;
  /** Query parameters after the view, e.g. `#/dashboard?run=run-1` → { run: 'run-1' }. */
  params: Record<string, string>;
}

const viewIds = new Set<string>(views.map((v) => v.id));

/** `#/envs?id=retail` → { view: 'envs', params: { id: 'retail' } }; anything unknown → Runs. */
export function parseHash(hash: string): Route {
  const body = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = body.split('?', 2);
  const view = viewIds.has(path) ? (path as ViewId) : 'runs';
  const params: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(query)) params[k] = v;
  return { view, params };
}

export function routeHref(view: ViewId, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') query.set(k, v);
  const text = query.toString();
  return `#/${view}${text ? `?${text}` : ''}`;
}
