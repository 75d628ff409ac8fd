// POST /events/send {event, contact_id | email, payload?}: 202 {object:'event', event}.
//
// Exactly one of contact_id (an existing contact, else 404) or email (the contact of that
// address, created with contact.created when there is none) names the contact. A defined
// event's payload is checked against its schema. The event is then put in `received_events`
// in the same transaction, and 202 means it is committed there: the automation worker
// (src/automations/ingest-events.ts) starts the runs it triggers and wakes the steps waiting
// for it, exactly once, from that table. Coupled with 0015_automations.sql.
import { ApiError, notFound, validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { constant, input, object, string, uuid } from '../api/schema.js';
import type { Body } from '../api/validate.js';
import { findContact, findOrCreateContact } from '../audience/contact-store.js';
import type { Db, Queryable } from '../db/database.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { checkPayload, checkPayloadSize, EVENT_NAME_SCHEMA, type EventSchema, PAYLOAD_SCHEMA } from './event-fields.js';

type ContactRef = { contactId: string } | { email: string };

/** The body of POST /events/send once it passed its schema. */
interface SendEventBody {
  event: string;
  contact_id?: string;
  email?: string;
  payload?: Body;
}

/** Exactly one of `contact_id` and `email` (a rule across fields, in the words the API has always used). */
function contactRef(body: SendEventBody): ContactRef {
  if (body.contact_id !== undefined && body.email !== undefined) throw validation('Provide either `contact_id` or `email`, not both.');
  if (body.contact_id !== undefined) return { contactId: body.contact_id };
  if (body.email === undefined) throw new ApiError('missing_required_field', 'Missing `contact_id` or `email` field.');
  const mailbox = parseMailbox(body.email, 'email');
  if (mailbox.name !== '') throw validation('The `email` field must be a bare address: `email@example.com`.');
  return { email: mailbox.address.toLowerCase() };
}

async function checkAgainstDefinition(q: Queryable, accountId: string, name: string, payload: Body): Promise<void> {
  const row = await q.one<{ schema: EventSchema | null }>('SELECT schema FROM event_definitions WHERE account_id = $1 AND name = $2', [accountId, name]);
  if (row?.schema) checkPayload(name, row.schema, payload);
}

async function resolveContact(q: Queryable, accountId: string, ref: ContactRef): Promise<string> {
  if ('email' in ref) return (await findOrCreateContact(q, accountId, ref.email)).contact.id;
  const contact = await findContact(q, accountId, ref.contactId);
  if (!contact) throw notFound('Contact');
  return contact.id;
}

export function sendEvent(db: Db): Route {
  return {
    method: 'POST',
    url: '/events/send',
    doc: {
      summary: 'Send a custom event for a contact (queued for automations)',
      body: input(
        {
          event: EVENT_NAME_SCHEMA,
          contact_id: uuid('An existing contact.'),
          email: string({ format: 'email', description: 'A bare address: its contact, created when there is none.' }),
          payload: PAYLOAD_SCHEMA,
        },
        ['event'],
        // Exactly one of contact_id and email: the handler says so in its own words (a schema's
        // `oneOf` would answer `Missing \`contact_id\` field.` when neither is given).
        { description: 'Exactly one of `contact_id` and `email`.' },
      ),
      response: { status: 202, schema: object({ object: constant('event'), event: string() }) },
    },
    async handler({ principal, body }) {
      const fields = body as SendEventBody;
      const name = fields.event;
      const ref = contactRef(fields);
      const payload = fields.payload ?? {};
      checkPayloadSize(payload);
      await db.tx(async (q) => {
        await checkAgainstDefinition(q, principal.accountId, name, payload);
        const contactId = await resolveContact(q, principal.accountId, ref);
        await q.query('INSERT INTO received_events (account_id, name, contact_id, payload) VALUES ($1, $2, $3, $4)', [
          principal.accountId,
          name,
          contactId,
          JSON.stringify(payload),
        ]);
      });
      return { status: 202, body: { object: 'event', event: name } };
    },
  };
}
