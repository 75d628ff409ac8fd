// /inboxes: create (an address on a receiving domain of the account), list, get, update and
// delete, by id or address (`:inbox`). Deleting an inbox deletes its threads, labels and
// drafts; the received mail itself stays in /emails/receiving.
import crypto from 'node:crypto';
import { missingField, validation } from '../api/errors.js';
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { boolean, deletedObject, input, objectId, string } from '../api/schema.js';
import { assertSingleLine, type Body, objectBody, optionalBoolean, optionalString, rejectUnknown } from '../api/validate.js';
import type { Db, Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { eventInbox } from './event-objects.js';
import { findInbox } from './find-inbox.js';
import { INBOX_SCHEMA, INBOX_SUMMARY_SCHEMA, inboxDetail, inboxSummary, readInboxes } from './inbox-view.js';

const MAX_NAME = 256;
const INBOX_PARAM = { inbox: string({ description: 'The inbox id, or its email address.' }) };

/** inbox.created, inbox.updated or inbox.deleted, in the transaction of the change; the SDK embeds the inbox but in inbox.deleted. */
export async function recordInboxEvent(q: Queryable, inbox: { id: string; account_id: string }, type: 'inbox.created' | 'inbox.updated' | 'inbox.deleted') {
  const embedded = type === 'inbox.deleted' ? {} : { inbox: await eventInbox(q, inbox.id) };
  return recordEvents(q, [{ accountId: inbox.account_id, type, data: { source: 'api', inbox_id: inbox.id, ...embedded } }]);
}

function nameField(body: Body, field: string): string | undefined {
  const value = optionalString(body, field, { max: MAX_NAME });
  if (value !== undefined) assertSingleLine(value, field);
  return value;
}

function createInbox(db: Db): Route {
  return {
    method: 'POST',
    url: '/inboxes',
    doc: {
      summary: 'Create an inbox for an address on a receiving domain',
      body: input({ email_address: string(), name: string({ maxLength: MAX_NAME }), forwarding: boolean(), from_name: string({ maxLength: MAX_NAME }) }, [
        'email_address',
      ]),
      response: { status: 201, schema: objectId('inbox') },
    },
    async handler({ principal, body: raw }) {
      const body = objectBody(raw);
      rejectUnknown(body, ['email_address', 'name', 'forwarding', 'from_name']);
      if (body.email_address === undefined || body.email_address === null) throw missingField('email_address');
      if (typeof body.email_address !== 'string') throw validation('The `email_address` field must be a string.');
      const mailbox = parseMailbox(body.email_address, 'email_address');
      if (mailbox.name) throw validation('The `email_address` field must be a bare address, without a name.');
      const address = mailbox.address.toLowerCase();
      const name = nameField(body, 'name') ?? address;
      const fromName = nameField(body, 'from_name') ?? null;
      const forwarding = optionalBoolean(body, 'forwarding') ?? false;
      const domain = await db.one('SELECT id, receiving_enabled FROM domains WHERE account_id = $1 AND name = $2 AND NOT placeholder', [
        principal.accountId,
        mailbox.domain,
      ]);
      if (!domain) throw validation(`The domain \`${mailbox.domain}\` is not a domain of this account.`);
      if (!domain.receiving_enabled) throw validation(`The domain \`${mailbox.domain}\` does not have receiving enabled.`);
      const id = crypto.randomUUID();
      await db.tx(async (q) => {
        const inserted = await q.query(
          `INSERT INTO inboxes (id, account_id, domain_id, email_address, name, from_name, forwarding)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (email_address) DO NOTHING RETURNING id`,
          [id, principal.accountId, domain.id, address, name, fromName, forwarding],
        );
        if (inserted.length === 0) throw validation(`An inbox for \`${address}\` already exists.`);
        await recordInboxEvent(q, { id, account_id: principal.accountId }, 'inbox.created');
      });
      return { status: 201, body: { object: 'inbox', id } };
    },
  };
}

function listInboxes(db: Db): Route {
  return accountList(db, {
    url: '/inboxes',
    table: 'inboxes',
    columns: 'id',
    view: async (rows) => {
      const ids = rows.map((r) => r.id as string);
      const full = new Map((await readInboxes(db, 'i.id = ANY($1::uuid[])', [ids])).map((r) => [r.id as string, r]));
      return ids.map((id) => inboxSummary(full.get(id)!));
    },
    doc: { summary: 'List inboxes', item: INBOX_SUMMARY_SCHEMA },
  });
}

function getInbox(db: Db): Route {
  return {
    method: 'GET',
    url: '/inboxes/:inbox',
    doc: { summary: 'Retrieve an inbox, by id or address', params: INBOX_PARAM, response: { status: 200, schema: INBOX_SCHEMA } },
    async handler({ principal, params }) {
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      const [row] = await readInboxes(db, 'i.id = $1', [inbox.id]);
      return { body: inboxDetail(row!) };
    },
  };
}

function updateInbox(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/inboxes/:inbox',
    doc: {
      summary: 'Rename an inbox or change the name its mail is sent from',
      params: INBOX_PARAM,
      body: input({ name: string({ maxLength: MAX_NAME }), from_name: string({ maxLength: MAX_NAME }) }),
      response: { status: 200, schema: objectId('inbox') },
    },
    async handler({ principal, params, body: raw }) {
      const body = objectBody(raw);
      rejectUnknown(body, ['name', 'from_name']);
      const name = nameField(body, 'name');
      const fromName = nameField(body, 'from_name');
      if (name === undefined && fromName === undefined) throw missingField('name');
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      await db.tx(async (q) => {
        await q.query('UPDATE inboxes SET name = coalesce($2, name), from_name = coalesce($3, from_name), updated_at = now() WHERE id = $1', [
          inbox.id,
          name ?? null,
          fromName ?? null,
        ]);
        await recordInboxEvent(q, inbox, 'inbox.updated');
      });
      return { body: { object: 'inbox', id: inbox.id } };
    },
  };
}

function deleteInbox(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/inboxes/:inbox',
    doc: { summary: 'Delete an inbox with its threads, labels and drafts', params: INBOX_PARAM, response: { status: 200, schema: deletedObject('inbox') } },
    async handler({ principal, params }) {
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      await db.tx(async (q) => {
        await q.query('DELETE FROM inboxes WHERE id = $1', [inbox.id]);
        await recordInboxEvent(q, inbox, 'inbox.deleted');
      });
      return { body: { object: 'inbox', id: inbox.id, deleted: true } };
    },
  };
}

export function inboxCrudRoutes(db: Db): Route[] {
  return [createInbox(db), listInboxes(db), getInbox(db), updateInbox(db), deleteInbox(db)];
}

export { INBOX_PARAM };
