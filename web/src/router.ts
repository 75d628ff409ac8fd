// Pages are addressed by path under /dashboard/ (the server answers every such path with the
// app); moving between them uses the History API, so Back and Forward work.
import { type MouseEvent, useSyncExternalStore } from 'react';

const BASE = '/dashboard';
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** The page's path below /dashboard, e.g. "/api-keys" ("/" for the overview). */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/');
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + (to === '/' ? '/' : to);
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/** A link's click handler: plain left clicks stay in the app, others (new tab) are the browser's. */
export function follow(to: string) {
  return (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
}
