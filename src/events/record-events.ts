// The single writer of lifecycle events (the transactional outbox). Every caller passes the
// transaction that changes the state the event describes, so an event is committed exactly
// when its state change is: never lost, never invented. Webhook dispatch reads `events`.
import type { Queryable } from '../db/database.js';
import { EMAIL_EVENTS, type EmailEventType } from './catalogue.js';
import { countEventsCte, RECORDED_COLUMNS } from './email-metrics.js';
import type { EmailEventData, NewEvent, OutboundEvent } from './payloads.js';

export type { NewEvent } from './payloads.js';

/**
 * A message delivery composed (or signed) for its first attempt, with the text part it sent:
 * stored on its email by that attempt's events, in the writer's one UPDATE of the email, so the
 * email takes one new row version, not two. The email becomes `signed` (email-row/stored-message.ts);
 * a message already stored is kept (another node's attempt at the same email won), its text with it.
 */
export interface SentMessage {
  emailId: string;
  mime: Buffer;
  text: string | null;
}

/** SentMessage's columns: the email becomes `signed` unless it already was. */
const STORE_SENT_MESSAGE = `,
            mime = COALESCE(e.mime, v.mime),
            unsigned_mime = CASE WHEN v.mime IS NULL THEN e.unsigned_mime END,
            text = CASE WHEN e.mime IS NULL AND v.mime IS NOT NULL THEN v.text ELSE e.text END`;

/**
 * Inserts events in one statement, and in the same statement adds them to the account's email
 * metrics (email-metrics.ts) and moves each email they are about to its last event's
 * `last_event` (the catalogue's). Call inside the state change's
 * transaction, after the change itself: an email keeps `scheduled` while a delivery of it
 * still waits for its time (a suppressed recipient of a scheduled email does not change what
 * the email is, unless nobody is left), which the writer reads from the deliveries as they
 * stand in that transaction.
 */
export async function recordEvents(q: Queryable, events: NewEvent[], sentMessages: SentMessage[] = []): Promise<void> {
  const moved = lastEvents(events);
  const sent = new Map(sentMessages.map((m) => [m.emailId, m]));
  const ids = [...new Set([...moved.keys(), ...sent.keys()])];
  if (events.length === 0 && ids.length === 0) return;
  const params: unknown[] = [
    events.map((e) => e.accountId),
    events.map((e) => e.type),
    events.map((e) => e.emailId ?? null),
    events.map((e) => JSON.stringify(e.data)),
  ];
  const recorded = `recorded AS (
       INSERT INTO events (account_id, type, email_id, data) SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[])
       RETURNING ${RECORDED_COLUMNS}
     ), counted AS (${countEventsCte('recorded')})`;
  if (ids.length === 0) {
    await q.query(`WITH ${recorded} SELECT 1`, params, 'record-events');
    return;
  }
  // One row of parameters per email (a Buffer travels as binary, where a bytea[] array would be hex text to parse).
  const values = ids.map((id) => {
    const message = sent.get(id);
    const row = sent.size > 0 ? [id, moved.get(id) ?? null, message?.mime ?? null, message?.text ?? null] : [id, moved.get(id) ?? null];
    const at = params.push(...row) - row.length;
    return `(${['uuid', 'text', 'bytea', 'text']
      .slice(0, row.length)
      .map((type, i) => `$${at + i + 1}::${type}`)
      .join(', ')})`;
  });
  await q.query(
    `WITH ${recorded}
     UPDATE emails e
        SET last_event = CASE WHEN v.last_event IS NOT NULL
                               AND (e.last_event <> 'scheduled'
                                    OR NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.email_id = e.id AND d.status = 'scheduled'))
                              THEN v.last_event ELSE e.last_event END${sent.size > 0 ? STORE_SENT_MESSAGE : ''}
       FROM (VALUES ${values.join(', ')}) AS v(id, last_event${sent.size > 0 ? ', mime, text' : ''})
      WHERE e.id = v.id`,
    params,
  );
}

/** Each email's `last_event` after `events`, in their order (the last one that sets it wins). */
function lastEvents(events: NewEvent[]): Map<string, string> {
  const last = new Map<string, string>();
  for (const e of events) {
    const value = e.emailId && e.type in EMAIL_EVENTS ? lastEventOf(e.type as EmailEventType) : null;
    if (value) last.set(e.emailId!, value);
  }
  return last;
}

/**
 * recordEvents as data-modifying CTEs of the statement that makes the state change, so both
 * reach the database in one round trip (persist-and-enqueue.ts): `name AS (the events), …
 * (their metrics)`, to follow WITH or a comma. `emails` names a CTE of that statement
 * returning (id, created_at, domain_id, broadcast_id) of the emails the events are about (the
 * metrics are counted by their domain and broadcast): an event's data without
 * `created_at` takes its email's, as the database set it. Pushes its parameters onto
 * `params`. The events keep their order.
 */
export function recordEventsCtes(name: string, events: NewEvent[], params: unknown[], emails: string): string {
  const at = params.push(
    events.map((e) => e.accountId),
    events.map((e) => e.type),
    events.map((e) => e.emailId ?? null),
    events.map((e) => JSON.stringify(e.data)),
  );
  return `${name} AS (
       INSERT INTO events (account_id, type, email_id, data)
       SELECT v.account_id, v.type, v.email_id,
              jsonb_build_object('created_at', to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) || v.data
         FROM unnest($${at - 3}::uuid[], $${at - 2}::text[], $${at - 1}::uuid[], $${at}::jsonb[]) WITH ORDINALITY
              AS v(account_id, type, email_id, data, n)
         JOIN ${emails} x ON x.id = v.email_id
        ORDER BY v.n
       RETURNING ${RECORDED_COLUMNS}
     ), ${name}_metrics AS (${countEventsCte(name, emails)})`;
}

/** The `last_event` an email takes when this event is recorded for it. */
export function lastEventOf(type: EmailEventType): string | null {
  return EMAIL_EVENTS[type].lastEvent;
}

/** The columns of an outbound email that its events' data come from. */
export interface EmailForEvent {
  id: string;
  /** Left out by an email being written in the same statement (recordEventsCtes). */
  created_at?: Date | string;
  from_address: string;
  subject: string;
  message_id: string;
  tags: { name: string; value: string }[] | null;
  broadcast_id?: string | null;
  template_id?: string | null;
}

/**
 * An outbound email event for `to` (resend-compat-notes §7.2): the email's fields, what the
 * event's type adds (a bounce, a click, …), then broadcast_id and template_id only when the
 * email came from one, and tags (as an object) only when it has some.
 */
export function outboundEvent(accountId: string, email: EmailForEvent, to: string[], event: OutboundEvent): NewEvent {
  const data: EmailEventData & Record<string, unknown> = {
    email_id: email.id,
    ...(email.created_at !== undefined && { created_at: new Date(email.created_at).toISOString() }),
    from: email.from_address,
    to,
    subject: email.subject,
    message_id: email.message_id,
    ...event.extra,
  };
  if (email.broadcast_id) data.broadcast_id = email.broadcast_id;
  if (email.template_id) data.template_id = email.template_id;
  if (email.tags?.length) data.tags = Object.fromEntries(email.tags.map((t) => [t.name, t.value]));
  // The type and its extra were checked together (OutboundEvent); TypeScript cannot follow
  // that pairing through the spread.
  return { accountId, type: event.type, emailId: email.id, data } as NewEvent;
}
