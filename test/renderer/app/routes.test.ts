import { describe, expect, it } from 'vitest';
import { parseHash, routeHref, views } from '../../../renderer/src/app/routes';

describe('hash routes', () => {
  it('parses the view and its parameters', () => {
    expect(parseHash('#/dashboard?run=run-1')).toEqual({ view: 'dashboard', params: { run: 'run-1' } });
    expect(parseHash('#/trajectories?run=a&rollout=7')).toEqual({ view: 'trajectories', params: { run: 'a', rollout: '7' } });
  });
  it('falls back to Runs for an empty or unknown hash', () => {
    expect(parseHash('')).toEqual({ view: 'runs', params: {} });
    expect(parseHash('#/nope?x=1').view).toBe('runs');
  });
  it('round-trips through routeHref, dropping empty parameters and escaping values', () => {
    const href = routeHref('envs', { id: 'tau/retail v2', empty: '', missing: undefined });
    expect(href).toBe('#/envs?id=tau%2Fretail+v2');
    expect(parseHash(href)).toEqual({ view: 'envs', params: { id: 'tau/retail v2' } });
  });
  it('covers every view of workbench.md plus the System and Settings panels', () => {
    expect(views.map((v) => v.id)).toEqual(['runs', 'new', 'dashboard', 'trajectories', 'memory', 'evaluate', 'export', 'models', 'envs', 'system', 'settings']);
  });
});
