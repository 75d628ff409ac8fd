// The one place that talks to the PostgreSQL driver. Concepts get a `Db` and use
// `db.query` or `db.tx`; nothing else imports `pg`.
import pg from 'pg';

// Keep bigint ids and counts as JS numbers (our sequences stay far below 2^53) and
// timestamps as Date.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface Queryable {
  /**
   * `name` makes it a prepared statement: parsed once per connection, and planned once unless
   * PostgreSQL finds its generic plan dearer than a plan for the call's values, then at every
   * call (a join over unnested parameters was, at 0.1 ms a call: keep such statements key
   * lookups and plain writes). For a hot statement whose text never changes (one text per name).
   * `R` is the row the statement returns, declared by the caller beside its SQL (pg gives int8
   * as number, timestamptz as Date, bytea as Buffer, numeric as string, jsonb parsed); with no
   * `R`, the rows cannot be read: a statement whose rows are read says what they are.
   */
  query<R extends object = never>(sql: string, params?: unknown[], name?: string): Promise<R[]>;
  one<R extends object = never>(sql: string, params?: unknown[]): Promise<R | undefined>;
}

export interface Db extends Queryable {
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly pool: pg.Pool;
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query(sql, params, name) {
      const res = await (name ? client.query({ name, text: sql, values: params }) : client.query(sql, params));
      return res.rows;
    },
    async one(sql, params) {
      const res = await client.query(sql, params);
      return res.rows[0];
    },
  };
}

const ignoreLostConnection = (): void => {};

export function openDb(url: string, options: { max?: number; applicationName?: string } = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName ?? 'postline',
  });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', () => {});
  const base = wrap(pool);
  return {
    ...base,
    pool,
    async tx(fn) {
      const client = await pool.connect();
      // A connection lost between two of the transaction's statements (the server terminated it)
      // is reported by the next statement; unheard, the client's 'error' event would end the process.
      client.on('error', ignoreLostConnection);
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.off('error', ignoreLostConnection);
        client.release(broken); // a client that cannot even roll back is discarded, not reused
      }
    },
    async close() {
      await pool.end();
    },
  };
}

/** Network errors of the driver's socket: the server could not be reached or dropped the connection. */
export const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether the statement failed because the database could not be reached or the connection was
 * lost (a restart, a failover, an operator refusing connections), so the same statement may succeed
 * once it is back; as opposed to the server refusing the statement itself.
 */
function isConnectionLoss(err: unknown): boolean {
  const { code, message = '' } = (err ?? {}) as { code?: unknown; message?: string };
  if (typeof code === 'string') {
    // Class 08: connection exceptions; 57P0x: the server shutting down, starting, or the database dropped.
    if (code.startsWith('08') || code.startsWith('57P') || NETWORK_ERRORS.has(code)) return true;
    return code === '55000' && message.includes('not currently accepting connections');
  }
  // The driver's own errors carry no code.
  return /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect/i.test(message);
}

/** Waits between tries of a statement the database could not take for loss of connection. */
const RECONNECT_BACKOFF_MS = [250, 500, 1000, 2000, 5000];

/**
 * Runs `fn`, and again with backoff for as long as it fails for loss of connection
 * (isConnectionLoss) and the next try would start before `deadline()` (ms since the epoch; read
 * before each wait, so the caller may bring it forward). Any other error, or the deadline, ends it
 * with the last error. `onLoss` hears the first loss, for a log line that says why it waits.
 */
export async function retryOnConnectionLoss<T>(fn: () => Promise<T>, deadline: () => number, onLoss?: (err: unknown) => void): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const wait = RECONNECT_BACKOFF_MS[Math.min(attempt, RECONNECT_BACKOFF_MS.length - 1)]!;
      if (!isConnectionLoss(err) || Date.now() + wait >= deadline()) throw err;
      if (attempt === 0) onLoss?.(err);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** `text` for a LIKE/ILIKE pattern with its wildcards and the escape character taken literally. */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
