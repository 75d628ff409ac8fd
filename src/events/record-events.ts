// The single writer of lifecycle events (the transactional outbox). Every caller passes the
// transaction that changes the state the event describes, so an event is committed exactly
// when its state change is: never lost, never invented. Webhook dispatch reads `events`.
import type { Queryable } from '../db/database.js';
import { EMAIL_EVENTS, type EmailEventType } from './catalogue.js';
import type { EmailEventData, NewEvent, OutboundEvent } from './payloads.js';

export type { NewEvent } from './payloads.js';

/** Inserts events in one statement. Call inside the state change's transaction. */
export async function recordEvents(q: Queryable, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await q.query(
    `INSERT INTO events (account_id, type, email_id, data)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[])`,
    [events.map((e) => e.accountId), events.map((e) => e.type), events.map((e) => e.emailId ?? null), events.map((e) => JSON.stringify(e.data))],
  );
}

/**
 * recordEvents as a data-modifying CTE of the statement that makes the state change, so both
 * reach the database in one round trip (persist-and-enqueue.ts). `emails` names a CTE of that
 * statement returning (id, created_at) of the emails the events are about: an event's data
 * without `created_at` takes its email's, as the database set it. Pushes its parameters onto
 * `params`. The events keep their order.
 */
export function recordEventsCte(events: NewEvent[], params: unknown[], emails: string): string {
  const at = params.push(
    events.map((e) => e.accountId),
    events.map((e) => e.type),
    events.map((e) => e.emailId ?? null),
    events.map((e) => JSON.stringify(e.data)),
  );
  return `INSERT INTO events (account_id, type, email_id, data)
       SELECT v.account_id, v.type, v.email_id,
              jsonb_build_object('created_at', to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) || v.data
         FROM unnest($${at - 3}::uuid[], $${at - 2}::text[], $${at - 1}::uuid[], $${at}::jsonb[]) WITH ORDINALITY
              AS v(account_id, type, email_id, data, n)
         JOIN ${emails} x ON x.id = v.email_id
        ORDER BY v.n`;
}

/** The `last_event` an email takes when this event is recorded for it. */
export function lastEventOf(type: EmailEventType): string | null {
  return EMAIL_EVENTS[type].lastEvent;
}

/** The columns of an outbound email that its events' data come from. */
export interface EmailForEvent {
  id: string;
  /** Left out by an email being written in the same statement (recordEventsCte). */
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
