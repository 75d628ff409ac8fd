// The messages waiting for one destination, oldest first: each recipient's state, its last
// attempt (MX host, reply, time), why one not tried yet waits (shaping, warm-up) and when it
// will be tried next. Pages by keyset on
// (created_at, id) over the deliveries_unfinished index, so page 500 costs what page 1 does.
// With them, the MTA-STS policies in force for the destination's domains (tls-policy/).
import type { Queryable } from '../db/database.js';
import { type StsView, storedStsPolicies } from '../tls-policy/mta-sts-cache.js';
import { type LastReply, lastReplyOf } from './summary.js';
import { type QueueState, queueStateSql, STATE_SQL, unfinishedSql } from './states.js';

interface QueuedMessage {
  object: 'queued_message';
  /** The delivery's id: one recipient of one email. */
  id: string;
  email_id: string;
  subject: string;
  recipient: string;
  domain: string;
  state: QueueState;
  attempts: number;
  created_at: string;
  /** When it will be tried next: null while in flight or paused. */
  next_attempt_at: string | null;
  last_attempt: LastReply | null;
  /** Why a row never tried waits (traffic shaping, warm-up): the reason it was given back with. */
  waiting_reason: string | null;
  paused_reason: string | null;
}

interface MessagePage {
  object: 'list';
  has_more: boolean;
  data: QueuedMessage[];
  /** The destination's recipient domains' MTA-STS policies as the nodes last found them (those looked up so far). */
  mta_sts: StsView[];
}

/** A waiting delivery with its email's subject, its state and the reason of its pause. */
interface QueuedMessageRow {
  id: number;
  email_id: string;
  subject: string;
  recipient: string;
  domain: string;
  state: QueueState;
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_mx: string | null;
  last_response: string | null;
  paused_reason: string | null;
}

export async function destinationMessages(
  q: Queryable,
  accountId: string,
  domains: string[],
  options: { limit: number; after?: string; state?: QueueState },
): Promise<MessagePage> {
  const params: unknown[] = [accountId, domains, options.limit + 1];
  let cursor = '';
  if (options.after !== undefined) {
    params.push(options.after);
    // Another account's or a finished delivery's id finds no cursor row, hence an empty page.
    cursor = `AND (d.created_at, d.id) > (SELECT c.created_at, c.id FROM deliveries c WHERE c.id = $${params.length} AND c.account_id = $1)`;
  }
  const state = options.state ? `AND ${STATE_SQL[options.state]('d')}` : '';
  // Each domain's rows come in index order, limited, and are merged: one sort of a few pages
  // instead of every waiting row of a large destination (a provider lists many domains).
  const rows = await q.query<QueuedMessageRow>(
    `SELECT d.id, d.email_id, e.subject, d.recipient, d.domain, ${queueStateSql('d')} AS state, d.attempts, d.created_at,
            d.next_attempt_at, d.last_attempt_at, d.last_mx, d.last_response, p.reason AS paused_reason
       FROM unnest($2::text[]) AS w(domain)
      CROSS JOIN LATERAL (
            SELECT d.* FROM deliveries d
             WHERE d.account_id = $1 AND d.domain = w.domain AND ${unfinishedSql('d')} ${state} ${cursor}
             ORDER BY d.created_at, d.id
             LIMIT $3) d
       JOIN emails e ON e.id = d.email_id
       LEFT JOIN queue_pauses p ON p.id = d.paused_by
      ORDER BY d.created_at, d.id
      LIMIT $3`,
    params,
  );
  const now = new Date();
  const data = rows.slice(0, options.limit).map(
    (r): QueuedMessage => ({
      object: 'queued_message',
      id: String(r.id),
      email_id: r.email_id,
      subject: r.subject,
      recipient: r.recipient,
      domain: r.domain,
      state: r.state,
      attempts: r.attempts,
      created_at: r.created_at.toISOString(),
      next_attempt_at: r.state === 'in_flight' || r.state === 'paused' ? null : (r.state === 'due' ? now : r.next_attempt_at).toISOString(),
      last_attempt: lastReplyOf(r.last_attempt_at, r.last_mx, r.last_response),
      waiting_reason: r.state === 'deferred' && r.last_attempt_at === null ? r.last_response : null,
      paused_reason: r.paused_reason,
    }),
  );
  return { object: 'list', has_more: rows.length > options.limit, data, mta_sts: await storedStsPolicies(q, domains) };
}
