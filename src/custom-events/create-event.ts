// POST /events {name, schema?}: defines a custom event; 201 {object:'event', id}. Defining an
// event is optional (any name may be sent); a defined event's payloads are checked against
// its schema by POST /events/send.
import crypto from 'node:crypto';
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { input, objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { EVENT_NAME_SCHEMA, EVENT_SCHEMA_SCHEMA, type EventSchema } from './event-fields.js';

export function createEvent(db: Db): Route {
  return {
    method: 'POST',
    url: '/events',
    doc: {
      summary: 'Define a custom event, optionally with a payload schema',
      body: input({ name: EVENT_NAME_SCHEMA, schema: EVENT_SCHEMA_SCHEMA }, ['name']),
      response: { status: 201, schema: objectId('event') },
    },
    async handler({ principal, body }) {
      const { name, schema = null } = body as { name: string; schema?: EventSchema | null };
      const id = crypto.randomUUID();
      const inserted = await db.query(
        `INSERT INTO event_definitions (id, account_id, name, schema) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, name) DO NOTHING RETURNING id`,
        [id, principal.accountId, name, schema && JSON.stringify(schema)],
      );
      if (inserted.length === 0) throw validation(`An event named \`${name}\` already exists.`);
      return { status: 201, body: { object: 'event', id } };
    },
  };
}
