// Leased work: the one primitive under every table the worker role claims work from (deliveries,
// webhook messages, contact imports, broadcast fan-out, automation steps, inbox agent jobs) and
// under the api/smtp roles' idempotency keys. Each queue describes its table once (LeasedTable)
// and keeps its own policies: what is due and in which order, what else a claim changes, how an
// outcome is written, what a released row looks like. What they share, and their contract, is
// here; test/concurrency/leased-work.test.ts checks it for each of the seven tables.
//
// The at-least-once contract, the same for every leased table:
// - A claim takes due rows with FOR UPDATE SKIP LOCKED, so claimers on any number of nodes take
//   disjoint rows and never wait on each other, and in the same statement sets the lease (now()
//   plus the lease, to the millisecond), `claimed_by` (the claiming node, cluster/node-presence.ts)
//   and the fencing token. The claimer owns the rows until the lease runs out: no claim takes
//   them before (they are not due), and one that ran out is due again by itself. (An idempotency
//   key is claimed by an upsert instead; its lease is 2 minutes from the claim.)
// - The token is a uuid the claim stamps, or the lease itself (its value as this claim set it:
//   deliveries and webhook messages). Every write that ends a claim (an outcome, a give-back) is
//   fenced: it matches the row's token with its claim's and writes nothing (0 rows) when they
//   differ, so a claimer that lost its rows writes nothing over their new owner's work.
// - Nodes beat every 2 s. At its next beat, any live node releases the claims of a node silent for
//   10 s, all kinds in one transaction (releaseOfNodes): the rows are due at once, `claimed_by`
//   and the token cleared (a lease token moves with the lease). A node presumed dead that was only
//   stalled finds its claims gone and its writes fenced. The lease stays the fallback: claims of a
//   process that keeps no presence come back when it runs out.
// - So work may be done twice (a stalled node's attempt in flight, an outcome lost with a crash
//   before its commit), never lost: only a fenced write of its claim (or an operator's cancel)
//   takes a claimed row out of its queue. Queues that must not do work twice write the work and
//   its outcome in one fenced transaction (import batches, broadcast chunks, automation steps,
//   idempotent responses).
//
// Table and column names and the SQL fragments of a description are constants of the code,
// written into the statements; every value is a parameter.
import crypto from 'node:crypto';
import type { Queryable } from '../db/database.js';

interface LeasedTable {
  table: string;
  /** The one-column key and its SQL type: claim() and settle() need it; absent for a composite key. */
  key?: { column: string; type: 'bigint' | 'text' | 'uuid' };
  /** The timestamptz a claim pushes forward: the row is owned until it (claim(), claimSql()). */
  lease?: string;
  /** The fencing token: a uuid column the claim stamps and a release clears, or the `lease` column. */
  token: string;
  /** SQL over the table's columns: a row a claim may take (claim(), dueSql). */
  due?: string;
  /** SQL over the table's columns: a claimed row whose work is not done, what releasing a node's claims gives back. */
  held: string;
  /** What releasing a claim sets (making the row due now) besides clearing claimed_by and the token; 'delete': forgotten instead. */
  released: string;
}

/** One claimed row: its key and the token its claim got. */
interface Claim<K, T> {
  key: K;
  token: T;
}

interface ClaimOptions {
  limit: number;
  leaseMs: number;
  /** The claiming node: its claims are released when it stops beating. */
  nodeId: string | null | undefined;
  /** ORDER BY of the due rows, over the table's columns. */
  order: string;
  /** More columns of the due rows as they were before the claim, `due.<name>` in `set` and `returning`. */
  select?: string;
  /** More assignments of the claim; the claimed row is `t`. */
  set?: string;
  /** What to return of each claimed row (`t.…`); its token comes as `fence_token`. */
  returning: string;
}

interface SettleOptions {
  /** Assignments of the write (the row is `t`, parameters from $3); default: released, due now. */
  set?: string;
  /** More conditions of the write, over `t`. */
  where?: string;
  params?: unknown[];
  /** Default: the key. */
  returning?: string;
}

/** K: the key's type in JS; T: the token's (a uuid, or the lease as a Date). */
export class LeasedWork<K extends string | number = string, T extends string | Date = string> {
  /** The table as its queue describes it. */
  constructor(readonly described: LeasedTable) {}

  get table(): string {
    return this.described.table;
  }

  /** A token of its own, which a claim stamps and a release clears; else the lease is the token. */
  private get separateToken(): boolean {
    return this.described.token !== this.described.lease;
  }

  /** Clearing a claim: claimed_by and a separate token (a lease token moves with the lease). */
  private get clearSql(): string {
    return this.separateToken ? `claimed_by = NULL, ${this.described.token} = NULL` : 'claimed_by = NULL';
  }

  private need<F extends keyof LeasedTable>(field: F): NonNullable<LeasedTable[F]> {
    const value = this.described[field];
    if (value === undefined) throw new Error(`${this.table} is described without ${field}`);
    return value as NonNullable<LeasedTable[F]>;
  }

  /** A row a claim may take, for a queue's own claim statement. */
  get dueSql(): string {
    return `(${this.need('due')})`;
  }

  /**
   * The assignments of a claim, for a queue's own claim statement: the lease (`leaseMs`, a
   * parameter, from now, truncated to the millisecond so that a JS Date equals it as a token),
   * the claiming node, and the token when it is a column of its own (`token`, a parameter).
   */
  claimSql(leaseMs: string, nodeId: string, token?: string): string {
    const lease = `${this.need('lease')} = date_trunc('milliseconds', now() + ${leaseMs} * interval '1 millisecond'), claimed_by = ${nodeId}`;
    if (!this.separateToken) return lease;
    if (token === undefined) throw new Error(`a claim of ${this.table} stamps a token`);
    return `${lease}, ${this.described.token} = ${token}`;
  }

  /** The fence of a write: the row's token is `tokenSql` (a parameter or a column); the row is `alias` if given. */
  fence(tokenSql: string, alias?: string): string {
    return `${alias ? `${alias}.` : ''}${this.described.token} = ${tokenSql}`;
  }

  /**
   * Claims up to `limit` due rows (SKIP LOCKED), oldest by `order` first, for `leaseMs`, with a new
   * token (one uuid a claim). `R`: the row `returning` returns.
   */
  async claim<R extends object>(q: Queryable, o: ClaimOptions): Promise<(R & { fence_token: T })[]> {
    const { table, token } = this.described;
    const key = this.need('key').column;
    const stamp = this.separateToken ? [crypto.randomUUID()] : [];
    return q.query<R & { fence_token: T }>(
      `WITH due AS (
         SELECT ${key}${o.select ? `, ${o.select}` : ''} FROM ${table}
          WHERE ${this.dueSql} ORDER BY ${o.order} LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE ${table} t SET ${this.claimSql('$2::float8', '$3', '$4')}${o.set ? `, ${o.set}` : ''}
         FROM due WHERE t.${key} = due.${key}
       RETURNING ${o.returning}, t.${token} AS fence_token`,
      [o.limit, o.leaseMs, o.nodeId ?? null, ...stamp],
    );
  }

  /**
   * The fenced write that ends claims: each row still held by its claim's token gets `set` (by
   * default it is released, due now) and its claim cleared; the others are left alone. Returns
   * what it wrote (`returning`), rows `R`: without `R`, only how many there are.
   */
  async settle<R extends object = never>(q: Queryable, claims: Claim<K, T>[], o: SettleOptions = {}): Promise<R[]> {
    if (claims.length === 0) return [];
    const { table, released } = this.described;
    const key = this.need('key');
    return q.query<R>(
      `UPDATE ${table} t SET ${this.clearSql}, ${o.set ?? released}
         FROM unnest($1::${key.type}[], $2::${this.separateToken ? 'uuid' : 'timestamptz'}[]) AS v(leased_key, leased_token)
        WHERE t.${key.column} = v.leased_key AND ${this.fence('v.leased_token', 't')}${o.where ? ` AND (${o.where})` : ''}
       RETURNING ${o.returning ?? `t.${key.column}`}`,
      [claims.map((c) => c.key), claims.map((c) => c.token), ...(o.params ?? [])],
    );
  }

  /**
   * Releases what `nodeIds` hold: nodes presumed dead (cluster/node-presence.ts, in the reaping
   * transaction), or one live node's claims it no longer works on, but for `except`. The rows are
   * due now and their claims cleared, which fences the old claims' writes. Returns how many.
   */
  async releaseOfNodes(q: Queryable, nodeIds: string[], except?: K[]): Promise<number> {
    const { table, held, released } = this.described;
    const exceptSql = except ? ` AND ${this.need('key').column} <> ALL($2::${this.need('key').type}[])` : '';
    const where = `claimed_by = ANY($1::uuid[]) AND (${held})${exceptSql}`;
    const rows = await q.query(
      released === 'delete'
        ? `DELETE FROM ${table} WHERE ${where} RETURNING 1`
        : `UPDATE ${table} SET ${this.clearSql}, ${released} WHERE ${where} RETURNING 1`,
      except ? [nodeIds, except] : [nodeIds],
    );
    return rows.length;
  }
}
