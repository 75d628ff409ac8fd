// PATCH /templates/:id (an id or an alias): edits the draft. Sending keeps using the
// published version until the next publish; the first edit after a publish starts a new
// draft version (so has_unpublished_versions turns true).
import crypto from 'node:crypto';
import { restTimestamp } from '../api/format.js';
import type { Route } from '../api/route.js';
import { objectId, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTemplate } from './find-template.js';
import { aliasTaken, checkPlaceholders, isAliasClash, type TemplateBody, templateFields, UPDATE_TEMPLATE_SCHEMA } from './template-fields.js';
import { storedVariables } from './variables.js';

export function updateTemplate(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/templates/:id',
    doc: {
      summary: "Edit a template's draft",
      params: { id: string({ description: 'The template id, or its alias.' }) },
      body: UPDATE_TEMPLATE_SCHEMA,
      response: { status: 200, schema: objectId('template') },
    },
    async handler({ principal, params, body }) {
      const fields = templateFields(body as TemplateBody);
      const id = await db
        .tx(async (q) => {
          const row = await findTemplate(q, principal.accountId, params.id!, { lock: true });
          const pick = <T>(value: T | undefined, current: T) => (value === undefined ? current : value);
          const previous = row.variables;
          const variables = fields.variables ? storedVariables(fields.variables, previous, restTimestamp(new Date())!, crypto.randomUUID) : previous;
          const draft = {
            name: pick(fields.name, row.name),
            alias: pick(fields.alias, row.alias),
            from: pick(fields.from, row.from_address),
            subject: pick(fields.subject, row.subject),
            replyTo: pick(fields.replyTo, row.reply_to),
            html: pick(fields.html, row.html),
            text: pick(fields.text, row.text),
            variables,
          };
          checkPlaceholders(draft);
          const version = row.draft_version_id === row.published_version_id ? crypto.randomUUID() : row.draft_version_id;
          await q.query(
            `UPDATE templates SET name = $2, alias = $3, from_address = $4, subject = $5, reply_to = $6, html = $7, text = $8,
               variables = $9, draft_version_id = $10, updated_at = now()
             WHERE id = $1`,
            [row.id, draft.name, draft.alias, draft.from, draft.subject, draft.replyTo, draft.html, draft.text, JSON.stringify(variables), version],
          );
          return row.id;
        })
        .catch((err) => {
          throw isAliasClash(err) ? aliasTaken(fields.alias) : err;
        });
      return { body: { object: 'template', id } };
    },
  };
}
