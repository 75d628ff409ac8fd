// PATCH /topics/:id {name?, description?, visibility?}: 200 {object:'topic', id}. The SDK
// sends the whole options object, `id` included, so an `id` equal to the path's is accepted.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { input, objectId, uuid } from '../api/schema.js';
import { objectBody, optionalEnum, optionalString, rejectUnknown } from '../api/validate.js';
import type { Db } from '../db/database.js';
import {
  findTopic,
  MAX_TOPIC_NAME,
  parseDescription,
  recordTopicEvent,
  refuseDefaultChange,
  TOPIC_EVENT_COLUMNS,
  TOPIC_FIELD_SCHEMAS,
  VISIBILITIES,
} from './topic-view.js';

export function updateTopic(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/topics/:id',
    doc: {
      summary: 'Update a topic',
      params: { id: uuid() },
      body: input({
        id: uuid('The SDK sends it: the same id as the path.'),
        name: TOPIC_FIELD_SCHEMAS.name,
        description: TOPIC_FIELD_SCHEMAS.description,
        visibility: TOPIC_FIELD_SCHEMAS.visibility,
      }),
      response: { status: 200, schema: objectId('topic') },
    },
    async handler({ principal, params, body: raw }) {
      const body = objectBody(raw);
      refuseDefaultChange(body);
      rejectUnknown(body, ['id', 'name', 'description', 'visibility']);
      if (body.id !== undefined && String(body.id).toLowerCase() !== params.id?.toLowerCase()) {
        throw validation('The `id` field must match the topic in the path.');
      }
      const name = optionalString(body, 'name', { max: MAX_TOPIC_NAME });
      const description = parseDescription(body);
      const visibility = optionalEnum(body, 'visibility', VISIBILITIES);
      const id = await db.tx(async (q) => {
        const topic = await findTopic(q, principal.accountId, params.id, { lock: true });
        const row = await q.one(
          `UPDATE topics SET name = $2, description = $3, visibility = $4, updated_at = now() WHERE id = $1 RETURNING ${TOPIC_EVENT_COLUMNS}`,
          [topic.id, name ?? topic.name, description === undefined ? topic.description : description, visibility ?? topic.visibility],
        );
        await recordTopicEvent(q, principal.accountId, 'topic.updated', row!);
        return topic.id as string;
      });
      return { body: { object: 'topic', id } };
    },
  };
}
