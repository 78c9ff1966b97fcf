// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Sidebar } from '../../../renderer/src/app/Sidebar';
import { routeHref, views } from '../../../renderer/src/app/routes';

// The jobs badge needs the engine; the links are under test here.
vi.mock('../../../renderer/src/views/jobs/JobsIndicator', () => ({ JobsIndicator: () => null }));

afterEach(cleanup);

describe('Sidebar', () => {
  it('links every routed view once (a view left out of its sections, as Models once was, cannot be reached)', () => {
    render(<Sidebar current="models" />);
    const nav = within(screen.getByRole('navigation', { name: 'Views' }));
    const hrefs = nav.getAllByRole('link').map((a) => a.getAttribute('href'));
    expect([...hrefs].sort()).toEqual(views.map((v) => routeHref(v.id)).sort());
    expect(nav.getByRole('link', { name: /Models/ }).getAttribute('aria-current')).toBe('page');
  });
});
