// Claiming due messages, like the mail queue (queue/claim.ts): leased work
// (concurrency/leased-work.ts, whose contract it keeps) whose lease, next_attempt_at, is also the
// fencing token of the outcome write (outcomes.ts).
//
// The claim walks the enabled endpoints (in random order, for fairness when the room is
// short) and takes as many due messages of each as this node has room for (limits.ts: about
// a second of work, judged by the endpoint's latency). So a slow or dead endpoint's backlog
// stays in the database instead of filling the dispatcher's memory, and the other
// endpoints' messages are claimed past it.
import { LeasedWork } from '../concurrency/leased-work.js';
import type { Db } from '../db/database.js';
import { webhookPayload } from './payload.js';
import { openSecret } from '../secrets/keyring.js';

export interface ClaimedMessage {
  id: string;
  webhookId: string;
  endpoint: string;
  /** The current signing secret, then the previous one while a rotation is under way. */
  secrets: string[];
  /** Attempts made before this one. */
  attempts: number;
  /** False for a replay: one attempt, no retries. */
  retry: boolean;
  leaseUntil: Date;
  /** When its event was recorded (the webhook lag metric counts from it). */
  eventCreatedAt: Date;
  /** The exact bytes to send (and sign). */
  body: string;
}

interface ClaimOptions {
  /** Messages in all. */
  limit: number;
  leaseMs: number;
  /** Room per endpoint this node holds messages of (0: none for now)... */
  rooms: { endpoints: string[]; rooms: number[] };
  /** ...and for every other endpoint. */
  firstRoom: number;
  /** The claiming node (cluster/node-presence.ts): if it stops beating, its messages are given back at once. */
  nodeId?: string | null;
}

/** The messages as leased work: next_attempt_at is the lease and the token. */
export const webhookMessageLeases = new LeasedWork<string, Date>({
  table: 'webhook_messages',
  key: { column: 'id', type: 'text' },
  lease: 'next_attempt_at',
  token: 'next_attempt_at',
  due: "status IN ('pending', 'attempting') AND next_attempt_at <= now()",
  held: "status IN ('pending', 'attempting') AND next_attempt_at > now()",
  released: 'next_attempt_at = now()',
});

const CLAIM_SQL = `
WITH due AS (
  SELECT m.id
    FROM (SELECT w.id, COALESCE(k.room, $2) AS room
            FROM webhooks w LEFT JOIN unnest($4::uuid[], $5::int[]) AS k(id, room) ON k.id = w.id
           WHERE w.status = 'enabled' AND COALESCE(k.room, $2) > 0
           ORDER BY random()) w
   CROSS JOIN LATERAL (
     SELECT id FROM webhook_messages
      WHERE webhook_id = w.id AND ${webhookMessageLeases.dueSql}
      ORDER BY next_attempt_at
      LIMIT w.room
      FOR UPDATE SKIP LOCKED
   ) m
   LIMIT $1
)
UPDATE webhook_messages m
   SET ${webhookMessageLeases.claimSql('$3', '$6')}
  FROM due, events e, webhooks w
 WHERE m.id = due.id AND e.id = m.event_id AND w.id = m.webhook_id
RETURNING m.id, m.webhook_id, m.attempts, m.retry, m.next_attempt_at AS lease_until,
          e.type, e.created_at, e.data, w.endpoint, w.signing_secret,
          CASE WHEN w.previous_secret_until > now() THEN w.previous_signing_secret END AS previous_secret`;

/** A claimed message as CLAIM_SQL returns it: with its event and endpoint. */
interface ClaimedMessageRow {
  id: string;
  webhook_id: string;
  attempts: number;
  retry: boolean;
  /** The lease the claim just set (next_attempt_at). */
  lease_until: Date;
  type: string;
  created_at: Date;
  data: unknown;
  endpoint: string;
  /** Sealed (secrets/keyring.ts), as previous_secret is. */
  signing_secret: string;
  previous_secret: string | null;
}

export async function claimDue(db: Db, options: ClaimOptions): Promise<ClaimedMessage[]> {
  const { limit, firstRoom, leaseMs, rooms } = options;
  const rows = await db.query<ClaimedMessageRow>(CLAIM_SQL, [limit, firstRoom, leaseMs, rooms.endpoints, rooms.rooms, options.nodeId ?? null]);
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    endpoint: r.endpoint,
    // Opened once per process and secret (keyring.ts), not per message.
    secrets: (r.previous_secret ? [r.signing_secret, r.previous_secret] : [r.signing_secret]).map((s: string) => openSecret(s, 'webhook-signing-secret')),
    attempts: r.attempts,
    retry: r.retry,
    leaseUntil: r.lease_until,
    eventCreatedAt: r.created_at,
    body: webhookPayload({ type: r.type, createdAt: r.created_at, data: r.data }),
  }));
}

/** Makes claimed messages that were never tried due again at once, where we still hold them. */
export async function releaseClaims(db: Db, messages: ClaimedMessage[]): Promise<void> {
  await webhookMessageLeases.settle(
    db,
    messages.map((m) => ({ key: m.id, token: m.leaseUntil })),
  );
}
