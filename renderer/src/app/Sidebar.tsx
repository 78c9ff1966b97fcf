import { JobsIndicator } from '../views/jobs/JobsIndicator';
import { routeHref, views, type ViewId } from './routes';

const sections: Array<{ title: string; ids: ViewId[] }> = [
  { title: 'Train', ids: ['runs', 'new', 'dashboard'] },
  { title: 'Inspect', ids: ['trajectories', 'memory', 'evaluate'] },
  { title: 'Ship', ids: ['export'] },
  { title: 'Setup', ids: ['models', 'envs', 'system', 'settings'] },
];

export function Sidebar({ current }: { current: ViewId }) {
  return (
    <nav className="sidebar" aria-label="Views">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          ◆
        </span>
        <span>
          EnvACE <span className="brand-sub">Workbench</span>
        </span>
      </div>
      {sections.map((section) => (
        <div key={section.title} className="nav-section">
          <p className="nav-title">{section.title}</p>
          <ul>
            {section.ids.map((id) => {
              const view = views.find((v) => v.id === id)!;
              return (
                <li key={id}>
                  <a href={routeHref(id)} className="nav-link" aria-current={current === id ? 'page' : undefined} title={view.hint}>
                    {view.label}
                  </a>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
      <JobsIndicator />
    </nav>
  );
}
