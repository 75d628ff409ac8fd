// /inboxes/:inbox/labels: an inbox's labels (a name unique in the inbox, a #RRGGBB colour),
// and /inboxes/:inbox/threads/:thread/labels: adding, setting and removing them on a thread.
import crypto from 'node:crypto';
import { missingField, validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { array, constant, deletedObject, input, isoTime, object, objectId, SINGLE_LINE_TEXT, string, uuid } from '../api/schema.js';
import type { Db, Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import type { InboxLabelRow, InboxRow } from './find-inbox.js';
import { findInbox, findInInbox } from './find-inbox.js';
import { INBOX_PARAM } from './inbox-routes.js';
import { THREAD_PARAMS } from './thread-routes.js';
import { LABEL_LIST_SCHEMA, threadLabels, threadSummary } from './thread-view.js';

const MAX_NAME = 64;
const MAX_LABELS_PER_CALL = 10;
const COLOR = /^#[0-9A-Fa-f]{6}$/;
/** A label created without a colour: a neutral grey. */
const DEFAULT_COLOR = '#6B7280';
const LABEL_PARAMS = { ...INBOX_PARAM, label: uuid('The label id.') };
const LABEL_SCHEMA = object({ id: uuid(), name: string(), color: string({ pattern: COLOR.source }), created_at: isoTime() });
const LABEL_FIELDS = {
  name: string({
    maxLength: MAX_NAME,
    anyOf: [{ pattern: SINGLE_LINE_TEXT, 'x-message': 'be a non-blank line of text' }],
    description: 'Unique in the inbox; stored without surrounding spaces.',
  }),
  color: string({ pattern: COLOR.source, 'x-message': 'be a hex colour in the #RRGGBB format', description: `#RRGGBB; default: ${DEFAULT_COLOR}.` }),
};
const CREATE_LABEL_SCHEMA = input(LABEL_FIELDS, ['name']);
const UPDATE_LABEL_SCHEMA = input(LABEL_FIELDS, [], { description: 'At least one of `name` and `color`.' });

/** A label's fields as stored, from a body that passed its schema: the name trimmed, the colour in capitals. */
function labelFields(body: unknown): { name?: string; color?: string } {
  const { name, color } = body as { name?: string; color?: string };
  return { name: name?.trim(), color: color?.toUpperCase() };
}

/** Postgres' unique violation on (inbox_id, name) becomes Resend's 422. */
async function uniquely<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw validation(`A label named \`${name}\` already exists in this inbox.`);
    throw err;
  }
}

function labelRoutesOfInbox(db: Db): Route[] {
  return [
    {
      method: 'GET',
      url: '/inboxes/:inbox/labels',
      doc: {
        summary: "List an inbox's labels",
        params: INBOX_PARAM,
        response: { status: 200, schema: object({ object: constant('list'), data: array(LABEL_SCHEMA) }) },
      },
      async handler({ principal, params }) {
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        const rows = await db.query<Omit<InboxLabelRow, 'inbox_id'>>(
          'SELECT id, name, color, created_at FROM inbox_labels WHERE inbox_id = $1 ORDER BY name, id',
          [inbox.id],
        );
        return {
          body: { object: 'list', data: rows.map((r) => ({ id: r.id, name: r.name, color: r.color, created_at: r.created_at.toISOString() })) },
        };
      },
    },
    {
      method: 'POST',
      url: '/inboxes/:inbox/labels',
      doc: {
        summary: 'Create a label',
        params: INBOX_PARAM,
        body: CREATE_LABEL_SCHEMA,
        response: { status: 201, schema: objectId('inbox_label') },
      },
      async handler({ principal, params, body }) {
        const { name, color } = labelFields(body) as { name: string; color?: string };
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        const id = crypto.randomUUID();
        await uniquely(name, () =>
          db.query('INSERT INTO inbox_labels (id, inbox_id, name, color) VALUES ($1, $2, $3, $4)', [id, inbox.id, name, color ?? DEFAULT_COLOR]),
        );
        return { status: 201, body: { object: 'inbox_label', id } };
      },
    },
    {
      method: 'PATCH',
      url: '/inboxes/:inbox/labels/:label',
      doc: {
        summary: 'Rename or recolour a label',
        params: LABEL_PARAMS,
        body: UPDATE_LABEL_SCHEMA,
        response: { status: 200, schema: objectId('inbox_label') },
      },
      async handler({ principal, params, body }) {
        const { name, color } = labelFields(body);
        // At least one: in code, so that a misspelt field is refused as unknown rather than as this.
        if (name === undefined && color === undefined) throw missingField('name');
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        const label = await findInInbox(db, 'inbox_labels', inbox.id, params.label!, 'Label');
        await uniquely(name, () =>
          db.query('UPDATE inbox_labels SET name = coalesce($2, name), color = coalesce($3, color) WHERE id = $1', [label.id, name ?? null, color ?? null]),
        );
        return { body: { object: 'inbox_label', id: label.id } };
      },
    },
    {
      method: 'DELETE',
      url: '/inboxes/:inbox/labels/:label',
      doc: {
        summary: 'Delete a label (it is removed from every thread)',
        params: LABEL_PARAMS,
        response: { status: 200, schema: deletedObject('inbox_label') },
      },
      async handler({ principal, params }) {
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        const label = await findInInbox(db, 'inbox_labels', inbox.id, params.label!, 'Label');
        await db.query('DELETE FROM inbox_labels WHERE id = $1', [label.id]);
        return { body: { object: 'inbox_label', id: label.id, deleted: true } };
      },
    },
  ];
}

/** The body of POST and PUT /inboxes/:inbox/threads/:thread/labels: 1–10 label ids (PUT: 0–10, clearing them all). */
const threadLabelsSchema = (minItems: number) =>
  input({ labels: array(uuid(), { minItems, maxItems: MAX_LABELS_PER_CALL, description: 'Ids of labels of the inbox.' }) }, ['labels']);

/** The labels named in a body that passed its schema, each once: every one must be a label of this inbox. */
async function labelIds(q: Queryable, inboxId: string, body: unknown): Promise<string[]> {
  const ids = [...new Set((body as { labels: string[] }).labels)];
  const found = await q.query<{ id: string }>('SELECT id FROM inbox_labels WHERE inbox_id = $1 AND id = ANY($2::uuid[])', [inboxId, ids]);
  const missing = ids.find((id) => !found.some((f) => f.id === id.toLowerCase()));
  if (missing !== undefined) throw validation(`The label \`${missing}\` does not exist in this inbox.`);
  return found.map((f) => f.id);
}

/** inbox.thread.labels.updated naming the labels added and removed, when any were. */
async function labelsChanged(q: Queryable, inbox: InboxRow, threadId: string, added: string[], removed: string[]): Promise<void> {
  if (added.length === 0 && removed.length === 0) return;
  const labels = await q.query<{ id: string; name: string; color: string }>(
    'SELECT id, name, color FROM inbox_labels WHERE id = ANY($1::uuid[]) ORDER BY name, id',
    [[...added, ...removed]],
  );
  const pick = (ids: string[]) => labels.filter((l) => ids.includes(l.id));
  const thread = await threadSummary(q, threadId);
  const data = { source: 'api' as const, inbox_id: inbox.id, thread_id: threadId, thread, added: pick(added), removed: pick(removed) };
  await recordEvents(q, [{ accountId: inbox.account_id, type: 'inbox.thread.labels.updated', data }]);
}

interface ThreadLabelRow {
  label_id: string;
}

const ids = (rows: ThreadLabelRow[]) => rows.map((r) => r.label_id);

function threadLabelRoutes(db: Db): Route[] {
  const withThread = async (accountId: string, params: Record<string, string>) => {
    const inbox = await findInbox(db, accountId, params.inbox!);
    return { inbox, thread: await findInInbox(db, 'inbox_threads', inbox.id, params.thread!, 'Thread') };
  };
  return [
    {
      method: 'POST',
      url: '/inboxes/:inbox/threads/:thread/labels',
      doc: {
        summary: 'Add labels to a thread',
        params: THREAD_PARAMS,
        body: threadLabelsSchema(1),
        response: { status: 200, schema: LABEL_LIST_SCHEMA },
      },
      async handler({ principal, params, body }) {
        const { inbox, thread } = await withThread(principal.accountId, params);
        const wanted = await labelIds(db, inbox.id, body);
        await db.tx(async (q) => {
          const added = await q.query<ThreadLabelRow>(
            'INSERT INTO inbox_thread_labels (thread_id, label_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING label_id',
            [thread.id, wanted],
          );
          await labelsChanged(q, inbox, thread.id, ids(added), []);
        });
        return { body: await threadLabels(db, thread.id) };
      },
    },
    {
      method: 'PUT',
      url: '/inboxes/:inbox/threads/:thread/labels',
      doc: {
        summary: "Replace a thread's labels",
        params: THREAD_PARAMS,
        body: threadLabelsSchema(0),
        response: { status: 200, schema: LABEL_LIST_SCHEMA },
      },
      async handler({ principal, params, body }) {
        const { inbox, thread } = await withThread(principal.accountId, params);
        const wanted = await labelIds(db, inbox.id, body);
        await db.tx(async (q) => {
          const removed = await q.query<ThreadLabelRow>(
            'DELETE FROM inbox_thread_labels WHERE thread_id = $1 AND NOT label_id = ANY($2::uuid[]) RETURNING label_id',
            [thread.id, wanted],
          );
          const added = await q.query<ThreadLabelRow>(
            'INSERT INTO inbox_thread_labels (thread_id, label_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING label_id',
            [thread.id, wanted],
          );
          await labelsChanged(q, inbox, thread.id, ids(added), ids(removed));
        });
        return { body: await threadLabels(db, thread.id) };
      },
    },
    {
      method: 'DELETE',
      url: '/inboxes/:inbox/threads/:thread/labels/:label',
      doc: {
        summary: 'Remove a label from a thread',
        params: { ...THREAD_PARAMS, label: uuid('The label id.') },
        response: { status: 200, schema: LABEL_LIST_SCHEMA },
      },
      async handler({ principal, params }) {
        const { inbox, thread } = await withThread(principal.accountId, params);
        const label = await findInInbox(db, 'inbox_labels', inbox.id, params.label!, 'Label');
        await db.tx(async (q) => {
          const removed = await q.query<ThreadLabelRow>('DELETE FROM inbox_thread_labels WHERE thread_id = $1 AND label_id = $2 RETURNING label_id', [
            thread.id,
            label.id,
          ]);
          await labelsChanged(q, inbox, thread.id, [], ids(removed));
        });
        return { body: await threadLabels(db, thread.id) };
      },
    },
  ];
}

export function labelRoutes(db: Db): Route[] {
  return [...labelRoutesOfInbox(db), ...threadLabelRoutes(db)];
}
