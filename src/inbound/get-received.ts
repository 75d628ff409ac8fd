// GET /emails/receiving/:id: one received email of the caller's account, with its body, its
// headers, a signed link to the raw message and its attachment list. Another account's id, or
// an outbound email's, is "Email not found". `html_format` (data_uri by default, or cid) says
// how inline images appear in the html; the response echoes the form served. `authentication`
// (Postline's own) gives the SPF, DKIM and DMARC verdicts recorded when the message arrived:
// the Authentication-Results header says the same, but holds text the sender chose.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { oneOfValues, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { inlineImages, referencesCid } from './inline-images.js';
import { parseMime } from '../message/received-message.js';
import type { Authentication } from './authenticate.js';
import {
  attachmentsOf,
  headerObject,
  RECEIVED_COLUMNS,
  RECEIVED_SCHEMA,
  type ReceivedEmailRow,
  receivedSummary,
  signedDownload,
  type ReceivedLinks,
} from './received-view.js';

const HTML_FORMATS = ['data_uri', 'cid'] as const;

interface ReceivedEmailDetailRow extends ReceivedEmailRow {
  html: string | null;
  text: string | null;
  /** [[name, value], …] in message order */
  headers: [string, string][];
  inbound_message_id: string;
  authentication: Pick<Authentication, 'spf' | 'dkim' | 'dmarc'>;
}

export function getReceived(db: Db, links: () => Promise<ReceivedLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/receiving/:id',
    doc: {
      summary: 'Retrieve a received email',
      params: { id: uuid() },
      query: {
        html_format: oneOfValues(HTML_FORMATS, { default: 'data_uri', description: 'How inline images appear in the html: data: URIs, or cid: references.' }),
      },
      response: { status: 200, schema: RECEIVED_SCHEMA },
    },
    async handler({ principal, params, query }) {
      const format = query.html_format ?? 'data_uri';
      const row = await db.one<ReceivedEmailDetailRow>(
        `SELECT ${RECEIVED_COLUMNS}, html, text, headers, inbound_message_id,
                (SELECT json_build_object('spf', m.spf, 'dkim', m.dkim, 'dmarc', m.dmarc) FROM inbound_messages m WHERE m.id = received_emails.inbound_message_id) AS authentication
           FROM received_emails WHERE id = $1 AND account_id = $2`,
        [params.id, principal.accountId],
      );
      if (!row) throw notFound('Email');
      const attachments = (await attachmentsOf(db, [row.id])).get(row.id)!;
      let html = row.html;
      if (format === 'data_uri' && referencesCid(html) && attachments.some((a) => a.content_id)) {
        const message = await db.one<{ raw: Buffer }>(`SELECT raw FROM inbound_messages WHERE id = $1`, [row.inbound_message_id]);
        html = inlineImages(html, await parseMime(message!.raw));
      }
      return {
        body: {
          object: 'email',
          ...receivedSummary(row, attachments),
          html,
          text: row.text ?? null,
          headers: headerObject(row.headers),
          raw: signedDownload(await links(), 'raw', row.id),
          authentication: row.authentication,
        },
      };
    },
  };
}
