// POST /templates: a new template, in draft until published; 201 {object, id}.
import crypto from 'node:crypto';
import { restTimestamp } from '../api/format.js';
import type { Route } from '../api/route.js';
import { objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { aliasTaken, CREATE_TEMPLATE_SCHEMA, createFields, isAliasClash, type TemplateBody } from './template-fields.js';
import { storedVariables } from './variables.js';

export function createTemplate(db: Db): Route {
  return {
    method: 'POST',
    url: '/templates',
    doc: { summary: 'Create a template (a draft)', body: CREATE_TEMPLATE_SCHEMA, response: { status: 201, schema: objectId('template') } },
    async handler({ principal, body }) {
      const fields = createFields(body as TemplateBody);
      const id = crypto.randomUUID();
      const variables = storedVariables(fields.variables ?? [], [], restTimestamp(new Date())!, crypto.randomUUID);
      try {
        await db.query(
          `INSERT INTO templates (id, account_id, name, alias, from_address, subject, reply_to, html, text, variables, draft_version_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            id,
            principal.accountId,
            fields.name,
            fields.alias ?? null,
            fields.from ?? null,
            fields.subject ?? null,
            fields.replyTo ?? null,
            fields.html,
            fields.text ?? null,
            JSON.stringify(variables),
            crypto.randomUUID(),
          ],
        );
      } catch (err) {
        if (isAliasClash(err)) throw aliasTaken(fields.alias);
        throw err;
      }
      return { status: 201, body: { object: 'template', id } };
    },
  };
}
