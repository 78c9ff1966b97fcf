import { useEffect, useState } from 'react';

const QUERY = '(prefers-color-scheme: dark)';

function current(): 'light' | 'dark' {
  return typeof window.matchMedia === 'function' && window.matchMedia(QUERY).matches ? 'dark' : 'light';
}

/** The OS colour scheme, live: components that paint with resolved colours (charts, editor) redraw on change. */
export function useColorScheme(): 'light' | 'dark' {
  const [scheme, setScheme] = useState(current);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const query = window.matchMedia(QUERY);
    const update = () => setScheme(query.matches ? 'dark' : 'light');
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return scheme;
}
