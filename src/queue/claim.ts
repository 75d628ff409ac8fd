// Claiming work from the queue (`deliveries`), and giving back what was claimed but never tried.
//
// The queue is leased work (concurrency/leased-work.ts, whose contract it keeps): a claim is one
// statement that locks due rows with FOR UPDATE SKIP LOCKED and pushes their next_attempt_at
// forward by a lease. The lease timestamp doubles as the fencing token: outcomes are written
// only where next_attempt_at still equals the lease we set (queue/settle.ts), so a worker that
// overran its lease, or whose node was presumed dead, cannot overwrite the work of the one that
// took the rows over. The claim itself is the queue's own: per priority, bounded in bytes.
//
// The emails' columns the events need (from, subject, message_id, tags, created_at) come back
// in the same statement, and the message bytes only on the first row of each email, so a
// claim is one round trip however many recipients an email has.
import { claimSizeSql, signedMessageSql } from '../email-row/stored-message.js';
import { LeasedWork } from '../concurrency/leased-work.js';
import { PAUSES_VERSION_SQL } from './pauses.js';
import type { Db } from '../db/database.js';
import { type ScheduleStep, storedSchedule } from '../warmup/schedule.js';
import type { DomainWarmup } from '../warmup/warmup-gate.js';

export interface ClaimedEmail {
  id: string;
  accountId: string;
  fromAddress: string;
  subject: string;
  messageId: string;
  tags: { name: string; value: string }[] | null;
  /** Where it came from, for the events' data (null for an API or SMTP email without a template). */
  broadcastId: string | null;
  templateId: string | null;
  createdAt: Date;
  /** When it entered the queue (accepted, or the time it was scheduled for): the max queue age counts from here. */
  queuedSince: Date;
  envelopeFrom: string | null;
  /** The verified domain it is sent from (domains.name); null for an email without one. */
  domainName: string | null;
  /** The sending domain's warm-up as claimed (warmup/warmup-gate.ts); null when it is not warming up. */
  warmup: DomainWarmup | null;
  /** The sending domain's `warmup.cap_transactional`, which the outbound IPs' warm-up reads too, whether or not the domain warms up. */
  capTransactional: boolean;
  /** The sending domain's pin to some of POSTLINE_OUTBOUND_IPS (delivery/outbound-ips.ts); null: not pinned. */
  outboundIps: string[] | null;
  /** The sending domain's `tls` as it is now (a change applies to mail already queued): enforced never sends in plain text. */
  tls: 'opportunistic' | 'enforced';
  /**
   * The signed message exactly as it goes on the wire. null for an email composed or signed at
   * delivery (0018_deferred_composition.sql, 0019_signed_at_delivery.sql) until the worker has
   * done so (worker.ts).
   */
  mime: Buffer | null;
  /** Set when this claim composed the message: the outcome's transaction stores it (outcomes.ts). */
  composed?: { text: string | null };
}

export interface ClaimedDelivery {
  id: number;
  recipient: string;
  domain: string;
  /** Attempts made before this one. */
  attempts: number;
  /** next_attempt_at as this claim set it: our lease, and the fencing token of writes. */
  leaseUntil: Date;
  /** The paused destinations' version as the claim saw them (queue/pauses.ts): a pause made before the claim holds its rows. */
  pausesVersion: string;
  email: ClaimedEmail;
}

interface ClaimOptions {
  limit: number;
  leaseMs: number;
  /** Stop adding emails once their messages add up to this many bytes (at least one email). */
  maxBytes: number;
  /** The claiming node (cluster/node-presence.ts): if it stops beating, its rows are given back at once. */
  nodeId?: string | null;
}

/** The queue's rows as leased work: next_attempt_at is the lease and the token. */
export const deliveryLeases = new LeasedWork<number, Date>({
  table: 'deliveries',
  key: { column: 'id', type: 'bigint' },
  lease: 'next_attempt_at',
  token: 'next_attempt_at',
  due: "status = 'queued' AND next_attempt_at <= now()",
  held: "status = 'queued' AND next_attempt_at > now()",
  released: 'next_attempt_at = now(), updated_at = now()',
});

// Transactional rows (priority 0) are taken first; bulk rows (priority 1: broadcasts) fill
// what is left of the batch, so a large broadcast never holds up a password reset
// (0014_broadcasts.sql). Within a class, ordered by next_attempt_at alone so the
// deliveries_due index (priority, next_attempt_at) yields the rows in order and the scan
// stops at the limit (adding id would sort every due row on each claim). Rows of one email
// share next_attempt_at and sit next to each other in that index.
const CLAIM_SQL = `
WITH transactional AS (
  SELECT id, email_id FROM deliveries
   WHERE ${deliveryLeases.dueSql} AND priority = 0
   ORDER BY next_attempt_at
   LIMIT $1
   FOR UPDATE SKIP LOCKED
), bulk AS (
  SELECT id, email_id FROM deliveries
   WHERE ${deliveryLeases.dueSql} AND priority = 1
   ORDER BY next_attempt_at
   LIMIT $1 - (SELECT count(*) FROM transactional)
   FOR UPDATE SKIP LOCKED
), locked AS (
  SELECT id, email_id FROM transactional UNION ALL SELECT id, email_id FROM bulk
), grouped AS (
  SELECT id, email_id, min(id) OVER (PARTITION BY email_id) AS first_id FROM locked
), budget AS (
  -- The emails' sizes added up in first-row order; the window's peers (ORDER BY first_id) make
  -- every row of an email see the total up to and including that email. No self-join: the
  -- planner cannot size a CTE and would nest-loop it (500 × 500 rows, 30 ms a claim).
  SELECT g.id, g.id = g.first_id AS first,
         sum(CASE WHEN g.id = g.first_id THEN ${claimSizeSql('e')} END)
           OVER (ORDER BY g.first_id) AS running,
         dense_rank() OVER (ORDER BY g.first_id) AS n
    FROM grouped g JOIN emails e ON e.id = g.email_id
), chosen AS (
  SELECT id, first FROM budget WHERE running <= $3 OR n = 1
)
UPDATE deliveries d
   SET ${deliveryLeases.claimSql('$2', '$4')},
       updated_at = now()
  FROM chosen c, emails e LEFT JOIN domains dm ON dm.id = e.domain_id
 WHERE d.id = c.id AND e.id = d.email_id
RETURNING d.id, d.priority, d.recipient, d.domain, d.attempts, d.next_attempt_at AS lease_until, ${PAUSES_VERSION_SQL} AS pauses_version,
          e.id AS email_id, e.account_id, e.from_address, e.subject, e.message_id, e.tags, e.broadcast_id, e.template_id,
          e.created_at, coalesce(e.scheduled_at, e.created_at) AS queued_since, e.envelope_from, c.first, CASE WHEN c.first THEN ${signedMessageSql('e')} END AS mime,
          dm.id AS domain_id, CASE WHEN c.first THEN dm.name END AS domain_name, dm.warmup_started_at,
          CASE WHEN c.first THEN dm.warmup_schedule END AS warmup_schedule, CASE WHEN c.first THEN dm.warmup_cap_transactional END AS warmup_cap_transactional,
          CASE WHEN c.first THEN dm.outbound_ips END AS outbound_ips,
          CASE WHEN c.first THEN dm.tls END AS domain_tls`;

/** A row CLAIM_SQL returns: the email's message and its domain's settings only on the email's first row (`first`). */
interface ClaimRow {
  id: number;
  priority: number;
  recipient: string;
  domain: string;
  attempts: number;
  lease_until: Date;
  pauses_version: string;
  email_id: string;
  account_id: string;
  from_address: string;
  subject: string;
  message_id: string;
  tags: { name: string; value: string }[] | null;
  broadcast_id: string | null;
  template_id: string | null;
  created_at: Date;
  queued_since: Date;
  envelope_from: string | null;
  first: boolean;
  mime: Buffer | null;
  /** The sending domain's: null for an email without one, and (but for domain_id and warmup_started_at) on rows not first. */
  domain_id: string | null;
  domain_name: string | null;
  warmup_started_at: Date | null;
  warmup_schedule: ScheduleStep[] | null;
  warmup_cap_transactional: boolean | null;
  outbound_ips: string[] | null;
  domain_tls: string | null;
}

export async function claimDue(db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const rows = await db.query<ClaimRow>(CLAIM_SQL, [options.limit, options.leaseMs, options.maxBytes, options.nodeId ?? null]);
  // Transactional rows first, each email's recipients in the order they were accepted.
  rows.sort((a, b) => a.priority - b.priority || Number(a.id) - Number(b.id));
  const emails = new Map<string, ClaimedEmail>();
  for (const r of rows) {
    if (!r.first) continue;
    emails.set(r.email_id, {
      id: r.email_id,
      accountId: r.account_id,
      fromAddress: r.from_address,
      subject: r.subject,
      messageId: r.message_id,
      tags: r.tags,
      broadcastId: r.broadcast_id,
      templateId: r.template_id,
      createdAt: r.created_at,
      queuedSince: r.queued_since,
      envelopeFrom: r.envelope_from,
      domainName: r.domain_name,
      // A warm-up is its domain's, whose id and name the first row has.
      warmup: r.warmup_started_at
        ? {
            domainId: r.domain_id!,
            name: r.domain_name!,
            startedAt: r.warmup_started_at,
            schedule: storedSchedule(r.warmup_schedule),
            capTransactional: r.warmup_cap_transactional === true,
          }
        : null,
      capTransactional: r.warmup_cap_transactional === true,
      outboundIps: r.outbound_ips,
      tls: r.domain_tls === 'enforced' ? 'enforced' : 'opportunistic',
      mime: r.mime,
    });
  }
  return rows.map((r) => ({
    id: r.id,
    recipient: r.recipient,
    domain: r.domain,
    attempts: r.attempts,
    leaseUntil: r.lease_until,
    pausesVersion: r.pauses_version,
    email: emails.get(r.email_id)!,
  }));
}

/**
 * Gives back rows we claimed but never tried, where we still hold them: due again at once
 * (shutdown, a lease too short to start: another worker need not wait out the lease), or at
 * `wait.until` (traffic shaping: delivery/shaping.ts; warm-up holds: holdForWarmup in warmup-release.ts) with its reason as the last response of
 * a row that has none yet (a row that has one keeps the server's last reply).
 */
export async function releaseClaims(db: Db, rows: ClaimedDelivery[], wait?: { until: Date; reason: string }): Promise<void> {
  await deliveryLeases.settle(
    db,
    rows.map((r) => ({ key: r.id, token: r.leaseUntil })),
    {
      set: 'next_attempt_at = coalesce($3::timestamptz, now()), last_response = coalesce(t.last_response, $4), updated_at = now()',
      where: "t.status = 'queued'",
      params: [wait?.until ?? null, wait?.reason ?? null],
    },
  );
}

/**
 * Gives back, due now, the rows this node has claimed but no longer holds (`held`: every row it
 * is working on or must not give back): claims whose commit it never heard of (the connection
 * was lost before the answer) and rows whose give-back failed. Without this they would wait out
 * their lease although the node is alive.
 */
export function releaseForgottenClaims(db: Db, nodeId: string, held: number[]): Promise<number> {
  return deliveryLeases.releaseOfNodes(db, [nodeId], held);
}
