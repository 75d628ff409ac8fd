// Pages are addressed by path under /dashboard/ (the server answers every such path with the
// app); moving between them uses the History API, so Back and Forward work. A page with unsaved
// changes may hold the others back until the person agrees to leave (guardLeaving).
import { type MouseEvent, useSyncExternalStore } from 'react';

const BASE = '/dashboard';
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Asked before the page changes: false keeps it, and the page calls `leave` once the person agrees. */
type LeaveGuard = (leave: () => void) => boolean;
let guard: { ask: LeaveGuard; at: string } | undefined;

/** Holds links, navigate(), Back and Forward to `ask` while the page is shown; returns the release. */
export function guardLeaving(ask: LeaveGuard): () => void {
  const own = { ask, at: window.location.pathname + window.location.search };
  guard = own;
  return () => {
    if (guard === own) guard = undefined;
  };
}

// Back and Forward have moved already: a guarded page puts its address back until the person agrees.
window.addEventListener('popstate', () => {
  const to = window.location.pathname.slice(BASE.length) + window.location.search;
  if (guard && !guard.ask(() => go(to || '/'))) {
    window.history.pushState(null, '', guard.at);
    return;
  }
  for (const listener of listeners) listener();
});

/** The page's path below /dashboard, e.g. "/api-keys" ("/" for the overview). */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/');
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (guard && !guard.ask(() => go(to, options))) return;
  go(to, options);
}

function go(to: string, options: { replace?: boolean } = {}): void {
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
