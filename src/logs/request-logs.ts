// API request logs: every request made with an API key, and every change a dashboard user made
// (its requests other than GET and HEAD, with the user), with their bodies, secrets redacted,
// kept for POSTLINE_LOG_RETENTION_DAYS. Entries are buffered and written in multi-row INSERTs a few
// times a second, so logging never adds a round trip to a request.
import crypto from 'node:crypto';
import { notFound } from '../api/errors.js';
import { restTimestamp } from '../api/format.js';
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { constant, integer, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import { type Db, likeLiteral, type Queryable } from '../db/database.js';

export interface RequestLogEntry {
  accountId: string;
  apiKeyId: string | null;
  /** The dashboard user who made it (a session); null for an API key's request. */
  userId: string | null;
  method: string;
  endpoint: string;
  status: number;
  userAgent: string | undefined;
  requestBody: unknown;
  /** Length of the request body as received, when known: spares serialising a large one. */
  requestBodySize?: number;
  responseBody: unknown;
}

const FLUSH_MS = 200;
const PURGE_BATCH = 10_000;
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

/** An escaped NUL (`\u0000`, not preceded by an escaping backslash) in JSON text. */
const ESCAPED_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

function storable(body: unknown, knownSize?: number): string | null {
  if (body === undefined || body === null || body === '') return null;
  // A large body (a batch of 100 emails) is only summarised: don't walk and serialise it.
  if (knownSize !== undefined && knownSize > MAX_STORED_BODY) return JSON.stringify({ truncated: true, size: knownSize });
  // jsonb refuses NUL characters, and one refused row would lose its whole batch: U+FFFD instead.
  const json = JSON.stringify(redact(body)).replace(ESCAPED_NUL, '$1\\ufffd');
  if (json.length <= MAX_STORED_BODY) return json;
  return JSON.stringify({ truncated: true, size: json.length });
}

/**
 * Retention (POSTLINE_LOG_RETENTION_DAYS): deletes the logs of every account older than `days`
 * before `now`, returning how many went. `now` is a parameter so retention can be tested.
 */
export async function purgeRequestLogs(db: Queryable, days: number, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  // In batches: a busy installation logs millions of requests a day, and one huge DELETE
  // would hold its locks and its WAL for a long time.
  let total = 0;
  for (;;) {
    const row = await db.one<{ n: number }>(
      `WITH gone AS (
         DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE created_at < $1 LIMIT ${PURGE_BATCH})
         RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [cutoff],
    );
    total += row!.n;
    if (row!.n < PURGE_BATCH) return total;
  }
}

/** The `/logs` filters (Postline's own, beside Resend's pagination), for the route's doc. */
const FILTERS_QUERY = {
  status: string({
    pattern: '^[1-5]([0-9]{2}|xx)$',
    description: 'Only responses with this status (`422`) or of this class (`4xx`).',
    examples: ['422', '5xx'],
  }),
  endpoint: string({
    minLength: 1,
    maxLength: 500,
    description: 'Only requests whose path starts with this (`/emails` matches `/emails/batch` and `/emails/:id`).',
  }),
  api_key_id: uuid('Only requests made with this API key (or OAuth grant: its id).'),
  source: oneOfValues(['api', 'dashboard'], { description: "Only the API's requests (made with a key), or only what dashboard users did." }),
};

/** Reads the `/logs` filters into SQL conditions on top of `account_id = $1`; 422 for a bad one. */
function logFilters(query: Record<string, string | undefined>): { where: string; params: unknown[] } {
  const conditions = ['account_id = $1'];
  const params: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(sql(`$${params.length + 1}`));
  };
  // Each value passed its schema (FILTERS_QUERY) before the handler ran.
  const { status, endpoint, api_key_id: keyId, source } = query;
  if (status !== undefined) {
    const [, digit, rest] = /^([1-5])([0-9]{2}|xx)$/.exec(status)!;
    if (rest === 'xx') add((n) => `response_status BETWEEN ${n}::int AND ${n}::int + 99`, Number(digit) * 100);
    else add((n) => `response_status = ${n}::int`, Number(status));
  }
  // A prefix, matched literally: LIKE's wildcards in the path stand for themselves.
  if (endpoint !== undefined) add((n) => `endpoint LIKE ${n} ESCAPE '\\'`, `${likeLiteral(endpoint)}%`);
  if (keyId !== undefined) add((n) => `api_key_id = ${n}`, keyId);
  if (source !== undefined) conditions.push(source === 'dashboard' ? 'user_id IS NOT NULL' : 'user_id IS NULL');
  return { where: conditions.join(' AND '), params };
}

/** Columns in the order record() buffers them, with their SQL types. */
const COLUMNS = [
  ['id', 'uuid'],
  ['account_id', 'uuid'],
  ['api_key_id', 'uuid'],
  ['user_id', 'uuid'],
  ['method', 'text'],
  ['endpoint', 'text'],
  ['response_status', 'int'],
  ['user_agent', 'text'],
  ['request_body', 'jsonb'],
  ['response_body', 'jsonb'],
  ['created_at', 'timestamptz'],
] as const;

/** A log as its list selects it. */
interface LogSummaryRow {
  id: string;
  created_at: Date;
  endpoint: string;
  method: string;
  response_status: number;
  user_agent: string | null;
  user_id: string | null;
  /** The user's address, read with the log. */
  user_email: string | null;
}

/** A whole log: its summary and its bodies. */
interface LogRow extends LogSummaryRow {
  request_body: unknown;
  response_body: unknown;
}

/** The summary routes() shows of a log, for its docs. */
const LOG_SUMMARY_SCHEMA = object({
  id: uuid(),
  created_at: restTime(),
  endpoint: string(),
  method: string(),
  response_status: integer(),
  user_agent: nullable(string()),
  user: nullable(
    object({ id: uuid(), email: nullable(string({ description: 'null once the user is deleted.' })) }, ['id', 'email'], {
      description: 'Postline: the dashboard user who made the request; null for a request made with an API key.',
    }),
  ),
});

/** The log's columns for its summary: the user's address read beside it. */
const SUMMARY_COLUMNS =
  'id, created_at, endpoint, method, response_status, user_agent, user_id, (SELECT u.email FROM users u WHERE u.id = request_logs.user_id) AS user_email';

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
      entry.userId,
      entry.method,
      entry.endpoint,
      entry.status,
      entry.userAgent ?? null,
      storable(entry.requestBody, entry.requestBodySize),
      storable(entry.responseBody),
      // The request's own time, not the flush's: entries written together keep their order.
      new Date(),
    ]);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.buffer;
    this.buffer = [];
    if (rows.length === 0) return this.flushing;
    // One array parameter per column (unnest): any number of rows in one statement.
    const columns = COLUMNS.map((_, c) => rows.map((row) => row[c]));
    this.flushing = this.flushing.then(() =>
      this.db
        .query(
          `INSERT INTO request_logs (${COLUMNS.map(([name]) => name).join(', ')})
           SELECT * FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`,
          columns,
        )
        .then(() => undefined, this.onError),
    );
    return this.flushing;
  }

  async purgeOlderThan(days: number): Promise<number> {
    return purgeRequestLogs(this.db, days);
  }

  routes(): Route[] {
    const db = this.db;
    const summary = (r: LogSummaryRow) => ({
      id: r.id,
      created_at: restTimestamp(r.created_at),
      endpoint: r.endpoint,
      method: r.method,
      response_status: r.response_status,
      user_agent: r.user_agent,
      user: r.user_id === null ? null : { id: r.user_id, email: r.user_email },
    });
    return [
      {
        method: 'GET',
        url: '/logs',
        doc: listDoc('List API request logs and dashboard changes', LOG_SUMMARY_SCHEMA, { query: FILTERS_QUERY }),
        handler: async ({ principal, query }) => {
          const page = parsePage(query);
          const filters = logFilters(query);
          await this.flush();
          const { rows, hasMore } = await listPage<LogSummaryRow>(db, {
            table: 'request_logs',
            columns: SUMMARY_COLUMNS,
            where: filters.where,
            params: [principal.accountId, ...filters.params],
            page,
          });
          return { body: envelope(rows.map(summary), hasMore) };
        },
      },
      {
        method: 'GET',
        url: '/logs/:id',
        doc: {
          summary: 'Retrieve an API request log, with its bodies',
          // Resend's words name it `logId`, as its SDK does.
          params: { id: { ...uuid(), 'x-error': { name: 'validation_error', message: 'The `logId` must be a valid UUID.' } } },
          response: { status: 200, schema: object({ object: constant('log'), ...LOG_SUMMARY_SCHEMA.properties, request_body: {}, response_body: {} }) },
        },
        handler: async ({ principal, params }) => {
          await this.flush();
          const row = await db.one<LogRow>(`SELECT ${SUMMARY_COLUMNS}, request_body, response_body FROM request_logs WHERE id = $1 AND account_id = $2`, [
            params.id,
            principal.accountId,
          ]);
          if (!row) throw notFound('Log');
          return { body: { object: 'log', ...summary(row), request_body: row.request_body, response_body: row.response_body } };
        },
      },
    ];
  }
}
