// /inboxes: create (an address on a receiving domain of the account), list, get, update and
// delete, by id or address (`:inbox`). Deleting an inbox deletes its threads, labels and
// drafts; the received mail itself stays in /emails/receiving.
import crypto from 'node:crypto';
import { missingField, validation } from '../api/errors.js';
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { boolean, deletedObject, input, type JsonSchema, objectId, string } from '../api/schema.js';
import type { Db, Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { eventInbox } from './event-objects.js';
import { findInbox, type InboxRow } from './find-inbox.js';
import { INBOX_SCHEMA, INBOX_SUMMARY_SCHEMA, inboxDetail, inboxSummary, readInboxes } from './inbox-view.js';

const MAX_NAME = 256;
const INBOX_PARAM = { inbox: string({ description: 'The inbox id, or its email address.' }) };

/** A string of one line (it may become a header line: the From's display name), not empty, at most `maxLength`. */
const oneLine = (maxLength: number, description?: string): JsonSchema =>
  string({
    minLength: 1,
    maxLength,
    anyOf: [{ pattern: '^[^\\r\\n\\u0000]*$', 'x-message': 'not contain line breaks' }],
    ...(description ? { description } : {}),
  });
const NAME_FIELDS = {
  name: oneLine(MAX_NAME, 'The name of the inbox (at creation, default: its address).'),
  from_name: oneLine(MAX_NAME, 'The display name of the mail sent from the inbox.'),
};
const CREATE_INBOX_SCHEMA = input(
  {
    email_address: string({ format: 'email', description: 'A bare address on a receiving domain of the account.' }),
    ...NAME_FIELDS,
    forwarding: boolean({ default: false }),
  },
  ['email_address'],
);
const UPDATE_INBOX_SCHEMA = input(NAME_FIELDS, [], { description: 'At least one of `name` and `from_name`.' });

/** The body of POST /inboxes once it passed CREATE_INBOX_SCHEMA; PATCH sends the names only. */
interface InboxFields {
  email_address: string;
  name?: string;
  from_name?: string;
  forwarding?: boolean;
}

/** inbox.created, inbox.updated or inbox.deleted, in the transaction of the change; the SDK embeds the inbox but in inbox.deleted. */
export async function recordInboxEvent(q: Queryable, inbox: { id: string; account_id: string }, type: 'inbox.created' | 'inbox.updated' | 'inbox.deleted') {
  const embedded = type === 'inbox.deleted' ? {} : { inbox: await eventInbox(q, inbox.id) };
  return recordEvents(q, [{ accountId: inbox.account_id, type, data: { source: 'api', inbox_id: inbox.id, ...embedded } }]);
}

interface InboxDomainRow {
  id: string;
  receiving_enabled: boolean;
}

function createInbox(db: Db): Route {
  return {
    method: 'POST',
    url: '/inboxes',
    doc: {
      summary: 'Create an inbox for an address on a receiving domain',
      body: CREATE_INBOX_SCHEMA,
      response: { status: 201, schema: objectId('inbox') },
    },
    async handler({ principal, body }) {
      const fields = body as InboxFields;
      // The address's syntax: more than a pattern says (mailbox.ts).
      const mailbox = parseMailbox(fields.email_address, 'email_address');
      if (mailbox.name) throw validation('The `email_address` field must be a bare address, without a name.');
      const address = mailbox.address.toLowerCase();
      const name = fields.name ?? address;
      const fromName = fields.from_name ?? null;
      const forwarding = fields.forwarding ?? false;
      const domain = await db.one<InboxDomainRow>('SELECT id, receiving_enabled FROM domains WHERE account_id = $1 AND name = $2 AND NOT placeholder', [
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
  return accountList<Pick<InboxRow, 'id'>>(db, {
    url: '/inboxes',
    table: 'inboxes',
    columns: 'id',
    view: async (rows) => {
      const ids = rows.map((r) => r.id);
      const full = new Map((await readInboxes(db, 'i.id = ANY($1::uuid[])', [ids])).map((r) => [r.id, r]));
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
      body: UPDATE_INBOX_SCHEMA,
      response: { status: 200, schema: objectId('inbox') },
    },
    async handler({ principal, params, body }) {
      const { name, from_name: fromName } = body as Partial<InboxFields>;
      // At least one: in code, so that a misspelt field is refused as unknown rather than as this.
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
