// /inboxes/:inbox/threads: list by folder, label and read state; search; get; update (folder,
// read state, assignee: thread-assignment.ts); delete (with its messages, which stay in /emails and /emails/receiving).
import { listDoc, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { array, boolean, deletedObject, input, isoTime, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import { missingField } from '../api/errors.js';
import type { Db } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import { findInbox, findInInbox, type InboxThreadRow } from './find-inbox.js';
import { INBOX_PARAM } from './inbox-routes.js';
import { booleanParam, dateParam, listParam, listThreads, threadFilters } from './thread-list.js';
import { ASSIGNEE_SCHEMA, assignThread, parseAssignee } from './thread-assignment.js';
import { INBOX_MESSAGE_FOLDERS, MOVE_THREAD_FOLDERS, THREAD_SCHEMA, THREAD_SUMMARY_SCHEMA, threadAnswer, threadSummary } from './thread-view.js';

export const THREAD_PARAMS = { ...INBOX_PARAM, thread: uuid('The thread id.') };
const FILTER_QUERY = {
  folders: array(oneOfValues(INBOX_MESSAGE_FOLDERS), { description: 'Comma-separated.' }),
  labels: array(uuid(), { description: 'Label ids, comma-separated: threads with any of them.' }),
  read: boolean(),
};

function listInboxThreads(db: Db): Route {
  return {
    method: 'GET',
    url: '/inboxes/:inbox/threads',
    listQuery: ['folders', 'labels'],
    doc: { ...listDoc('List the threads of an inbox (default: the inbox folder)', THREAD_SCHEMA, { query: FILTER_QUERY }), params: INBOX_PARAM },
    async handler({ principal, params, query }) {
      const filters = threadFilters(query, ['inbox']);
      const page = parsePage(query);
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      return { body: await listThreads(db, inbox.id, filters, page) };
    },
  };
}

function searchInboxThreads(db: Db): Route {
  return {
    method: 'GET',
    url: '/inboxes/:inbox/threads/search',
    listQuery: ['folders', 'labels', 'from', 'to', 'cc', 'bcc'],
    doc: {
      ...listDoc(
        'Search the threads of an inbox (full text; default folders: inbox, archive, sent)',
        object({ ...THREAD_SCHEMA.properties, matched_email_id: nullable(uuid()) }),
        {
          query: {
            ...FILTER_QUERY,
            query: string({ description: 'Words, "phrases", -excluded, OR (websearch syntax) over subject, addresses and text.' }),
            from: array(string()),
            to: array(string()),
            cc: array(string()),
            bcc: array(string()),
            has_attachment: boolean(),
            start_date: isoTime(),
            end_date: isoTime(),
          },
        },
      ),
      params: INBOX_PARAM,
    },
    async handler({ principal, params, query }) {
      const filters = threadFilters(query, ['inbox', 'archive', 'sent']);
      const search = {
        query: query.query?.trim() || undefined,
        from: listParam(query, 'from'),
        to: listParam(query, 'to'),
        cc: listParam(query, 'cc'),
        bcc: listParam(query, 'bcc'),
        hasAttachment: booleanParam(query, 'has_attachment'),
        startDate: dateParam(query, 'start_date'),
        endDate: dateParam(query, 'end_date'),
      };
      const page = parsePage(query);
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      return { body: await listThreads(db, inbox.id, filters, page, search) };
    },
  };
}

function getInboxThread(db: Db): Route {
  return {
    method: 'GET',
    url: '/inboxes/:inbox/threads/:thread',
    doc: { summary: 'Retrieve a thread', params: THREAD_PARAMS, response: { status: 200, schema: THREAD_SUMMARY_SCHEMA } },
    async handler({ principal, params }) {
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      const thread = await findInInbox(db, 'inbox_threads', inbox.id, params.thread!, 'Thread');
      return { body: await threadAnswer(db, thread.id) };
    },
  };
}

function updateInboxThread(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/inboxes/:inbox/threads/:thread',
    doc: {
      summary: 'Mark a thread read or unread, move it to another folder, or assign it',
      params: THREAD_PARAMS,
      body: input({ read: boolean(), folder: oneOfValues(MOVE_THREAD_FOLDERS), assignee_email: ASSIGNEE_SCHEMA }, [], {
        description: 'At least one of `read`, `folder` and `assignee_email`.',
      }),
      response: { status: 200, schema: THREAD_SUMMARY_SCHEMA },
    },
    async handler({ principal, params, body }) {
      const fields = body as { read?: boolean; folder?: (typeof MOVE_THREAD_FOLDERS)[number]; assignee_email?: string | null };
      const { read, folder } = fields;
      const assignee = parseAssignee(fields.assignee_email);
      // At least one: in code, so that a misspelt field is refused as unknown rather than as this.
      if (read === undefined && folder === undefined && assignee === undefined) throw missingField('folder');
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      const thread = await findInInbox(db, 'inbox_threads', inbox.id, params.thread!, 'Thread');
      await db.tx(async (q) => {
        const [before] = await q.query<Pick<InboxThreadRow, 'folder' | 'assignee_email'>>(
          'SELECT folder, assignee_email FROM inbox_threads WHERE id = $1 FOR UPDATE',
          [thread.id],
        );
        await q.query('UPDATE inbox_threads SET read = coalesce($2, read), folder = coalesce($3, folder) WHERE id = $1', [
          thread.id,
          read ?? null,
          folder ?? null,
        ]);
        if (before && folder !== undefined && before.folder !== folder) {
          const summary = await threadSummary(q, thread.id);
          const data = { source: 'api' as const, inbox_id: inbox.id, thread_id: thread.id, thread: summary, from: before.folder, to: folder };
          await recordEvents(q, [{ accountId: inbox.account_id, type: 'inbox.thread.folder.updated', data }]);
        }
        if (before && assignee !== undefined) {
          await assignThread(q, { inbox, threadId: thread.id, previous: before.assignee_email, assignee, principal });
        }
        // A thread read or unread is all its messages read or unread.
        if (read !== undefined) await q.query('UPDATE inbox_messages SET read = $2 WHERE thread_id = $1 AND read <> $2', [thread.id, read]);
      });
      return { body: await threadAnswer(db, thread.id) };
    },
  };
}

function deleteInboxThread(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/inboxes/:inbox/threads/:thread',
    doc: { summary: 'Delete a thread with its messages and drafts', params: THREAD_PARAMS, response: { status: 200, schema: deletedObject('inbox_thread') } },
    async handler({ principal, params }) {
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      const thread = await findInInbox(db, 'inbox_threads', inbox.id, params.thread!, 'Thread');
      await db.query('DELETE FROM inbox_threads WHERE id = $1', [thread.id]);
      return { body: { object: 'inbox_thread', id: thread.id, deleted: true } };
    },
  };
}

export function threadRoutes(db: Db): Route[] {
  return [listInboxThreads(db), searchInboxThreads(db), getInboxThread(db), updateInboxThread(db), deleteInboxThread(db)];
}
