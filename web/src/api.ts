// The dashboard's one way to Postline: the same HTTP API the SDK calls, authenticated by the
// session cookie. Every change carries the session's anti-forgery token (X-CSRF-Token). What the
// routes answer and take is typed from the OpenAPI document (api-types.ts, by `npm run docs`).
// An answer that the session has ended, to any call, leaves for the sign-in page (session.ts).
import type { components, paths } from './api-types';
import { currentPlace, leaveForSignIn } from './session';

/**
 * The 401s of a session that has ended (expired, revoked, signed out elsewhere): the first
 * request after it says so and clears the cookie, any later one comes without a cookie.
 */
const SESSION_ENDED = new Set(['invalid_session', 'missing_api_key']);

let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The session's anti-forgery token, for the one change that goes as a form (the mail preview). */
export const currentCsrfToken = (): string => csrfToken ?? '';

/** An error answer, as the API gives it: `{statusCode, message, name}`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  // A FormData body (an upload) goes as multipart/form-data, its boundary set by the browser.
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const payload = form ? body : body === undefined ? undefined : JSON.stringify(body);
  const res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  const data = await res.json().catch(() => undefined);
  if (!res.ok) {
    const failure = data as Partial<components['schemas']['Error']> | undefined;
    if (res.status === 401 && SESSION_ENDED.has(failure?.name ?? '')) {
      leaveForSignIn(currentPlace());
      // Never settles: the page is being replaced, and shows no error about it meanwhile.
      return new Promise<never>(() => {});
    }
    throw new ApiFailure(res.status, failure?.message ?? `${res.status} ${res.statusText}`, failure?.name ?? 'error');
  }
  return data as T;
}

/**
 * The JSON answer of a route that succeeded, as the OpenAPI document describes it (api-types.ts,
 * generated from it). `unknown` for a method the route lacks or an answer that is not JSON, so a
 * wrong path or method fails to compile wherever the answer is read.
 */
export type Answer<P extends keyof paths, M extends Method = 'get'> = [Operation<P, M>] extends [never]
  ? unknown
  : Operation<P, M> extends { responses: infer R }
    ? Json<R[Extract<keyof R, Success>]>
    : unknown;

/** One item of a list route's answer (its `data`). */
export type Item<P extends keyof paths> = Answer<P> extends { data: (infer T)[] } ? T : unknown;

/** The query parameters of a GET route. */
export type Query<P extends keyof paths> = Operation<P, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : unknown;

/** The JSON body a route takes. */
export type RequestBody<P extends keyof paths, M extends Method> = [Operation<P, M>] extends [never]
  ? unknown
  : Operation<P, M> extends { requestBody?: infer B }
    ? Json<NonNullable<B>>
    : unknown;

type Method = 'get' | 'post' | 'patch' | 'delete';
type Success = 200 | 201 | 202;
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<T> = [T] extends [{ content: { 'application/json': infer B } }] ? B : unknown;

/** A list route's answer, whichever its items: the shape every list of the API shares. */
export interface List<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}

/**
 * The values of a union of the API's types (an enum of the document) as a list, for a form's
 * choices: the record must name every value, and no other, so the compiler fails when the
 * server's list changes.
 */
export const everyValue = <T extends string>(values: Record<T, true>): T[] => Object.keys(values) as T[];

export type Session = Answer<'/dashboard/api/session'>;
export type ApiKey = Item<'/api-keys'>;
/** A domain as the list has it. */
export type DomainSummary = Item<'/domains'>;
/** A domain with its records, settings, DKIM keys and warm-up (GET /domains/:id; POST /domains answers most of it). */
export type Domain = Answer<'/domains/{id}'>;
export type DnsRecord = Domain['records'][number];
export type Warmup = NonNullable<Domain['warmup']>;
/** A claim of a domain another account holds (GET /domains/:id/claim, by its placeholder's id). */
export type DomainClaim = Answer<'/domains/{id}/claim'>;
