// The end of a session in this tab, however it ends (Sign out, idle too long, revoked): the
// sign-in page is loaded as a new document, so nothing of the account stays in memory (the query
// cache, a page's state, the anti-forgery token) nor on the screen. An ended session keeps
// where the person was (`?next=`), to return there once signed in again.

const SIGN_IN = '/dashboard/sign-in';

/** Leaves for the sign-in page; `next`: a path below /dashboard (with its query) to come back to. */
export function leaveForSignIn(next?: string): void {
  window.location.replace(next && next !== '/' ? `${SIGN_IN}?next=${encodeURIComponent(next)}` : SIGN_IN);
}

/** Where this page is, below /dashboard: what an ended session comes back to. */
export const currentPlace = (): string => window.location.pathname.replace(/^\/dashboard/, '') + window.location.search;

/**
 * Where to go once signed in: `?next=` when it is a page of this dashboard, else the overview.
 * Never another site (no open redirect): only a path that stays below /dashboard on this origin.
 */
export function nextPlace(search: string = window.location.search): string {
  const next = new URLSearchParams(search).get('next');
  // One leading slash, then no backslash or control character ("//host", "/\host" name another host).
  if (!next || !/^\/(?![/\\])[^\\\p{Cc}]*$/u.test(next)) return '/';
  const url = new URL(`/dashboard${next}`, window.location.origin);
  if (url.origin !== window.location.origin || !url.pathname.startsWith('/dashboard/')) return '/';
  const place = url.pathname.slice('/dashboard'.length) + url.search;
  return place.startsWith('/sign-in') ? '/' : place;
}
