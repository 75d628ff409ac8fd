// GET /emails/receiving/:id/attachments/:attachment_id: one attachment of one of the caller's
// received emails, with a signed download URL.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { constant, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { attachmentWithUrl, RECEIVED_ATTACHMENT_COLUMNS, RECEIVED_ATTACHMENT_SCHEMA, type ReceivedAttachmentRow, type ReceivedLinks } from './received-view.js';

export function getReceivedAttachment(db: Db, links: () => Promise<ReceivedLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/receiving/:id/attachments/:attachment_id',
    doc: {
      summary: "Retrieve a received email's attachment",
      params: { id: uuid(), attachment_id: uuid() },
      response: {
        status: 200,
        schema: object({ object: constant('attachment'), ...RECEIVED_ATTACHMENT_SCHEMA.properties }, [
          'object',
          ...(RECEIVED_ATTACHMENT_SCHEMA.required as string[]),
        ]),
      },
    },
    async handler({ principal, params }) {
      const row = await db.one<ReceivedAttachmentRow>(
        `SELECT ${RECEIVED_ATTACHMENT_COLUMNS} FROM received_attachments WHERE id = $1 AND received_email_id = $2 AND account_id = $3`,
        [params.attachment_id, params.id, principal.accountId],
      );
      if (row) return { body: { object: 'attachment', ...attachmentWithUrl(row, await links()) } };
      const email = await db.one(`SELECT id FROM received_emails WHERE id = $1 AND account_id = $2`, [params.id, principal.accountId]);
      throw notFound(email ? 'Attachment' : 'Email');
    },
  };
}
