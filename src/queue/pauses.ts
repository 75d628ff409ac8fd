// Paused destinations: an account's mail to a recipient domain, or to every domain of a
// provider, waits until the destination is resumed (an operator's answer to "they are
// throttling us" or "their server is broken"). A pause may hold the mail of one sending
// domain only (the delivery worker's answer to a provider that blocklists that domain: the
// account's other domains still send there). Owner of `queue_pauses` and of deliveries'
// 'paused' status.
//
// Accepting never looks at pauses. The delivery claim returns the pauses' version (count and
// highest id: any pause made or lifted changes it), and the worker checks each claimed job
// against the pauses it keeps in memory, reloading them when the claim saw another version;
// so mail claimed after a pause was made is held, and no job costs a query. Rows of a paused
// destination are parked as 'paused', naming the pause (paused_by). The parking statement checks that the pause still
// exists, so a stale memory never parks mail. Resuming deletes the pause and makes its rows
// due at once; a row parked by a statement that raced with the resume is made due by the
// next sweep (`resumeOrphans`), so paused mail always has a pause to show for it. The max
// queue age applies to paused mail like to any other (queue/max-queue-age.ts).
import type { Db, Queryable } from '../db/database.js';
import type { ProviderTable } from '../providers/providers.js';
import { type Destination, domainsOf } from './destinations.js';

export interface Pause {
  id: number;
  accountId: string;
  kind: 'domain' | 'provider';
  name: string;
  /** The sending domain whose mail it holds; null: all of the account's mail. */
  sendingDomain: string | null;
  reason: string;
  createdAt: Date;
}

/** SQL: the pauses' version, which changes whenever a pause is made or lifted. */
export const PAUSES_VERSION_SQL = `(SELECT count(*) || ':' || coalesce(max(id), 0) FROM queue_pauses)`;

/** A queue_pauses row (`SELECT *`). */
interface PauseRow {
  id: number;
  account_id: string;
  kind: Pause['kind'];
  name: string;
  /** '' for all of the account's mail. */
  sending_domain: string;
  reason: string;
  created_at: Date;
}

/** The pauses with their version: with no pause, one row of nulls (the LEFT JOIN) that carries the version. */
type VersionedPauseRow = (PauseRow | { [K in keyof PauseRow]: null }) & { version: string };

const pauseOf = (r: PauseRow): Pause => ({
  id: Number(r.id),
  accountId: r.account_id,
  kind: r.kind,
  name: r.name,
  sendingDomain: r.sending_domain || null,
  reason: r.reason,
  createdAt: r.created_at,
});

export async function listPauses(q: Queryable, accountId: string): Promise<Pause[]> {
  const rows = await q.query<PauseRow>(`SELECT * FROM queue_pauses WHERE account_id = $1 ORDER BY created_at, id`, [accountId]);
  return rows.map(pauseOf);
}

/**
 * Pauses a destination (again: the reason is replaced) for all of the account's mail, or only
 * for mail from `sendingDomain`; parks its unclaimed queued rows now.
 */
export async function pauseDestination(
  db: Db,
  accountId: string,
  destination: Destination,
  reason: string,
  providers: ProviderTable,
  sendingDomain: string | null = null,
): Promise<{ pause: Pause; parked: number }> {
  return db.tx(async (q) => {
    const [row] = await q.query<PauseRow>(
      `INSERT INTO queue_pauses (account_id, kind, name, sending_domain, reason) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, kind, name, sending_domain) DO UPDATE SET reason = EXCLUDED.reason
       RETURNING *`,
      [accountId, destination.kind, destination.name, sendingDomain ?? '', reason],
    );
    const pause = pauseOf(row!);
    const domains = await domainsOf(q, accountId, destination, providers);
    // Claimed rows are left to their attempt; the worker parks them if they come back.
    const parked = await q.query(
      `UPDATE deliveries SET status = 'paused', paused_by = $3, updated_at = now()
        WHERE account_id = $1 AND domain = ANY($2::text[]) AND status = 'queued' AND claimed_by IS NULL
          AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM emails e JOIN domains dm ON dm.id = e.domain_id
                                           WHERE e.id = deliveries.email_id AND dm.name = $4))
    RETURNING id`,
      [accountId, domains, pause.id, sendingDomain],
    );
    return { pause, parked: parked.length };
  });
}

/**
 * Resumes a destination: its pauses go (for every sending domain), their rows are due now.
 * null when it was not paused.
 */
export async function resumeDestination(db: Db, accountId: string, destination: Destination): Promise<{ pause: Pause; resumed: number } | null> {
  return db.tx(async (q) => {
    const rows = await q.query<PauseRow>(`DELETE FROM queue_pauses WHERE account_id = $1 AND kind = $2 AND name = $3 RETURNING *`, [
      accountId,
      destination.kind,
      destination.name,
    ]);
    if (rows.length === 0) return null;
    const pauses = rows.map(pauseOf);
    const resumed = await unpark(q, 'paused_by = ANY($1::bigint[])', [pauses.map((p) => p.id)]);
    return { pause: pauses.find((p) => p.sendingDomain === null) ?? pauses[0]!, resumed };
  });
}

async function unpark(q: Queryable, where: string, params: unknown[]): Promise<number> {
  const rows = await q.query(
    `UPDATE deliveries SET status = 'queued', paused_by = NULL, next_attempt_at = now(), updated_at = now()
      WHERE status = 'paused' AND ${where}
  RETURNING id`,
    params,
  );
  return rows.length;
}

/** Makes due the paused rows whose pause is gone (a park that raced with a resume). */
export function resumeOrphans(q: Queryable): Promise<number> {
  return unpark(q, `NOT EXISTS (SELECT 1 FROM queue_pauses p WHERE p.id = deliveries.paused_by)`, []);
}

/**
 * The pauses as the delivery worker sees them: all accounts', reloaded when a claim saw
 * another version. `find` answers from memory.
 */
export class ActivePauses {
  private byAccount = new Map<string, Pause[]>();
  private version = '';
  private loading: Promise<void> | undefined;

  constructor(
    private db: Db,
    private providers: ProviderTable,
  ) {}

  /**
   * The pause that holds mail of `accountId` from `sendingDomain` (null: none known) to
   * `domain` (whose MX hosts are `mxHosts`), if any, as of `version` (the claim's) or later.
   */
  async find(version: string, accountId: string, sendingDomain: string | null, domain: string, mxHosts: readonly string[]): Promise<Pause | undefined> {
    if (this.version !== version) {
      // A load already under way may have begun before the claim; one begun after it is current.
      await this.loading;
      if (this.version !== version) await this.reload();
    }
    const pauses = this.byAccount.get(accountId)?.filter((p) => p.sendingDomain === null || p.sendingDomain === sendingDomain);
    if (!pauses?.length) return undefined;
    const onDomain = pauses.find((p) => p.kind === 'domain' && p.name === domain);
    if (onDomain) return onDomain;
    const provider = this.providers.providerOf(domain, mxHosts);
    return provider === null ? undefined : pauses.find((p) => p.kind === 'provider' && p.name === provider);
  }

  private reload(): Promise<void> {
    this.loading ??= this.db
      .query<VersionedPauseRow>(`SELECT p.*, ${PAUSES_VERSION_SQL} AS version FROM (SELECT 1) one LEFT JOIN queue_pauses p ON true`)
      .then((rows) => {
        const byAccount = new Map<string, Pause[]>();
        for (const pause of rows.filter((r) => r.id !== null).map(pauseOf)) byAccount.set(pause.accountId, [...(byAccount.get(pause.accountId) ?? []), pause]);
        this.byAccount = byAccount;
        this.version = rows[0]!.version;
      })
      .finally(() => (this.loading = undefined));
    return this.loading;
  }
}

/**
 * Parks claimed rows of a paused destination, where the pause still exists and we still hold
 * the lease; returns the rows it did not park (their pause is gone: to be released).
 */
export async function parkPaused(q: Queryable, pauseId: number, rows: { id: number; leaseUntil: Date }[]): Promise<number[]> {
  const parked = await q.query<{ id: number }>(
    `UPDATE deliveries d SET status = 'paused', paused_by = $3, claimed_by = NULL, next_attempt_at = now(), updated_at = now()
       FROM unnest($1::bigint[], $2::timestamptz[]) AS v(id, lease)
      WHERE d.id = v.id AND d.status = 'queued' AND d.next_attempt_at = v.lease
        AND EXISTS (SELECT 1 FROM queue_pauses p WHERE p.id = $3)
  RETURNING d.id`,
    [rows.map((r) => r.id), rows.map((r) => r.leaseUntil), pauseId],
  );
  const done = new Set(parked.map((r) => Number(r.id)));
  return rows.filter((r) => !done.has(Number(r.id))).map((r) => r.id);
}
