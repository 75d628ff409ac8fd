// API request logs: every authenticated request with its bodies, secrets redacted, kept for
// POSTLINE_LOG_RETENTION_DAYS. Entries are buffered and written in multi-row INSERTs a few
// times a second, so logging never adds a round trip to a request.
import crypto from 'node:crypto';
import { validation, notFound } from '../api/errors.js';
import { isUuid, restTimestamp } from '../api/format.js';
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';

export interface RequestLogEntry {
  accountId: string;
  apiKeyId: string | null;
  method: string;
  endpoint: string;
  status: number;
  userAgent: string | undefined;
  requestBody: unknown;
  responseBody: unknown;
}

const FLUSH_MS = 200;
const MAX_STORED_BODY = 64 * 1024; // characters of JSON; larger bodies are summarised
const SECRET_KEYS = new Set(['token', 'signing_secret', 'password', 'secret', 'api_key']);
const TOKEN_PATTERN = /re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}/g;

/** Replaces secrets (API key tokens, signing secrets) wherever they appear in a body. */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(TOKEN_PATTERN, 're_********');
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.has(k) && typeof v === 'string' ? '[redacted]' : redact(v);
    return out;
  }
  return value;
}

function storable(body: unknown): string | null {
  if (body === undefined || body === null || body === '') return null;
  const json = JSON.stringify(redact(body));
  if (json.length <= MAX_STORED_BODY) return json;
  return JSON.stringify({ truncated: true, size: json.length });
}

export class RequestLogs {
  private buffer: unknown[][] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private db: Db,
    private onError: (err: Error) => void,
  ) {}

  record(entry: RequestLogEntry): void {
    this.buffer.push([
      crypto.randomUUID(),
      entry.accountId,
      entry.apiKeyId,
      entry.method,
      entry.endpoint,
      entry.status,
      entry.userAgent ?? null,
      storable(entry.requestBody),
      storable(entry.responseBody),
    ]);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.buffer;
    this.buffer = [];
    if (rows.length === 0) return this.flushing;
    const placeholders = rows.map((_, i) => `(${Array.from({ length: 9 }, (_, j) => `$${i * 9 + j + 1}`).join(',')})`);
    this.flushing = this.flushing.then(() =>
      this.db
        .query(
          `INSERT INTO request_logs (id, account_id, api_key_id, method, endpoint, response_status, user_agent, request_body, response_body)
           VALUES ${placeholders.join(',')}`,
          rows.flat(),
        )
        .then(() => undefined, this.onError),
    );
    return this.flushing;
  }

  async purgeOlderThan(days: number): Promise<void> {
    await this.db.query(`DELETE FROM request_logs WHERE created_at < now() - make_interval(days => $1)`, [days]);
  }

  routes(): Route[] {
    const db = this.db;
    const summary = (r: Record<string, any>) => ({
      id: r.id,
      created_at: restTimestamp(r.created_at),
      endpoint: r.endpoint,
      method: r.method,
      response_status: r.response_status,
      user_agent: r.user_agent,
    });
    return [
      {
        method: 'GET',
        url: '/logs',
        handler: async ({ principal, query }) => {
          await this.flush();
          const { rows, hasMore } = await listPage(db, {
            table: 'request_logs',
            columns: 'id, created_at, endpoint, method, response_status, user_agent',
            where: 'account_id = $1',
            params: [principal.accountId],
            page: parsePage(query),
          });
          return { body: envelope(rows.map(summary), hasMore) };
        },
      },
      {
        method: 'GET',
        url: '/logs/:id',
        handler: async ({ principal, params }) => {
          if (!isUuid(params.id)) throw validation('The `logId` must be a valid UUID.');
          await this.flush();
          const row = await db.one('SELECT * FROM request_logs WHERE id = $1 AND account_id = $2', [params.id, principal.accountId]);
          if (!row) throw notFound('Log');
          return { body: { object: 'log', ...summary(row), request_body: row.request_body, response_body: row.response_body } };
        },
      },
    ];
  }
}
