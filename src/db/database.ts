// The one place that talks to the PostgreSQL driver. Concepts get a `Db` and use
// `db.query` or `db.tx`; nothing else imports `pg`.
import pg from 'pg';

// Keep bigint ids and counts as JS numbers (our sequences stay far below 2^53) and
// timestamps as Date.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

// biome-ignore lint/suspicious/noExplicitAny: a row as pg returns it; the concept that owns the table gives it a type.
export type Row = Record<string, any>;

export interface Queryable {
  /**
   * `name` makes it a prepared statement: parsed and planned once per connection, not per call.
   * For a hot statement whose text never changes (one text per name).
   */
  query<R extends Row = Row>(sql: string, params?: unknown[], name?: string): Promise<R[]>;
  one<R extends Row = Row>(sql: string, params?: unknown[]): Promise<R | undefined>;
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

/** `text` for a LIKE/ILIKE pattern with its wildcards and the escape character taken literally. */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
