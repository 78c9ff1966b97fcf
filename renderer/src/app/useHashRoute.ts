import { useEffect, useState } from 'react';
import { parseHash, type Route } from './routes';

/** The current hash route, updated on back/forward and link clicks. */
export function useHashRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function navigate(href: string): void {
  window.location.hash = href.replace(/^#/, '');
}
