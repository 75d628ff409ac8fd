// The dashboard's one way to Postline: the same HTTP API the SDK calls, authenticated by the
// session cookie. Every change carries the session's anti-forgery token (X-CSRF-Token).
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
  if (!res.ok) throw new ApiFailure(res.status, data?.message ?? `${res.status} ${res.statusText}`, data?.name ?? 'error');
  return data as T;
}

export interface Session {
  object: 'session';
  user: { id: string; email: string };
  account: { id: string; name: string };
  csrf_token: string;
  /** POSTLINE_SANDBOX: mail is captured, and the dashboard shows it. */
  sandbox: boolean;
}

export interface List<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}

export interface ApiKey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface DnsRecord {
  record: string;
  name: string;
  type: string;
  value: string;
  ttl?: string;
  priority?: number;
  status: string;
}

export interface Domain {
  id: string;
  name: string;
  status: string;
  region: string;
  created_at: string;
  capabilities: { sending: 'enabled' | 'disabled'; receiving: 'enabled' | 'disabled' };
  /** Only on a domain made in sandbox mode: it sends without DNS, into the catcher. */
  sandboxed?: true;
  /** Only on a claim's placeholder: another account holds the domain until the claim completes. */
  placeholder?: true;
  open_tracking?: boolean;
  click_tracking?: boolean;
  tls?: 'opportunistic' | 'enforced';
  records?: DnsRecord[];
  /** Postline: records worth publishing that verification does not wait for (DMARC). */
  recommended_records?: DnsRecord[];
  /** Postline: the sending warm-up (GET /domains/:id); null when not warming up. */
  warmup?: Warmup | null;
}

export interface Warmup {
  status: 'warming_up' | 'ended';
  started_at: string;
  day: number;
  days: number;
  per_provider_daily: number | null;
  next_day_at: string | null;
  custom_schedule?: true;
  today: { provider: string; sent: number; remaining: number }[];
}

/** A claim of a domain another account holds (GET /domains/:id/claim, by its placeholder's id). */
export interface DomainClaim {
  id: string;
  name: string;
  status: 'pending' | 'verified' | 'completed' | 'blocked' | 'expired' | 'superseded' | 'canceled' | 'failed';
  domain_id: string;
  record: { type: 'TXT'; name: string; value: string; ttl: string };
  blocked_reason: string | null;
  failure_reason: string | null;
  created_at: string;
  expires_at: string;
}
