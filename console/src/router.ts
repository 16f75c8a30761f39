/**
 * Client-side routes under /console/: the History API, one table of patterns (routes.tsx). The controller answers
 * every /console/ path with the same index.html, so a reload or a shared link opens the same screen.
 */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(to: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** The current path and query, re-rendering on every navigation. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return { path: location.pathname, search: new URLSearchParams(location.search) };
}

/** Replaces the query string's values (undefined removes one) without a new history entry per keystroke. */
export function setQuery(values: Record<string, string | undefined>): void {
  const search = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === '') search.delete(key);
    else search.set(key, value);
  }
  const text = search.toString();
  navigate(`${location.pathname}${text ? `?${text}` : ''}`, { replace: true });
}

/** Matches `/console/identities/:id` against a path; returns the parameters or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const source = pattern.replace(/:([a-zA-Z]+)/g, (_all, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const found = new RegExp(`^${source}/?$`).exec(path);
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]));
}
