import { useEffect, useRef, type ReactNode } from 'react';
import { DashboardView } from '../views/dashboard/DashboardView';
import { EnvsView } from '../views/envs/EnvsView';
import { MemoryView } from '../views/memory/MemoryView';
import { ModelsView } from '../views/models/ModelsView';
import { NewRunView } from '../views/new-run/NewRunView';
import { ExportView } from '../views/export/ExportView';
import { EvaluateView } from '../views/evaluate/EvaluateView';
import { RunsView } from '../views/runs/RunsView';
import { SettingsView } from '../views/settings/SettingsView';
import { SystemView } from '../views/system/SystemView';
import { TrajectoriesView } from '../views/trajectories/TrajectoriesView';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { ConnectionBanner } from './ConnectionBanner';
import { HomeAccessBanner } from './HomeAccessBanner';
import { type Route } from './routes';
import { Sidebar } from './Sidebar';
import { useHashRoute } from './useHashRoute';

function renderView(route: Route): ReactNode {
  switch (route.view) {
    case 'runs':
      return <RunsView />;
    case 'new':
      return <NewRunView />;
    case 'dashboard':
      return <DashboardView runId={route.params.run} compare={route.params.compare} />;
    case 'trajectories':
      return <TrajectoriesView runId={route.params.run} rolloutId={route.params.rollout} />;
    case 'memory':
      return <MemoryView memoryId={route.params.id} />;
    case 'evaluate':
      return <EvaluateView runId={route.params.run} step={route.params.step} />;
    case 'export':
      return <ExportView runId={route.params.run} />;
    case 'models':
      return <ModelsView />;
    case 'envs':
      return <EnvsView selected={route.params.id} adding={route.params.add === '1'} />;
    case 'system':
      return <SystemView />;
    case 'settings':
      return <SettingsView />;
  }
}

/** The shell: skip link, sidebar, connection banner, and the routed view. */
export function App() {
  const route = useHashRoute();
  const main = useRef<HTMLElement>(null);
  const shownView = useRef(route.view);
  // Move focus to the new view on navigation, so keyboard and screen-reader users land in it.
  // Compared with the last view rather than "first render", which StrictMode runs twice.
  useEffect(() => {
    if (shownView.current === route.view) return;
    shownView.current = route.view;
    main.current?.focus();
  }, [route.view]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <Sidebar current={route.view} />
      <div className="content">
        <ConnectionBanner />
        <HomeAccessBanner />
        <main id="main" ref={main} tabIndex={-1} data-view={route.view}>
          <ErrorBoundary resetKey={`${route.view}?${JSON.stringify(route.params)}`}>{renderView(route)}</ErrorBoundary>
        </main>
      </div>
    </div>
  );
}
