// PATCH /topics/:id {name?, description?, visibility?}: 200 {object:'topic', id}. The SDK
// sends the whole options object, `id` included, so an `id` equal to the path's is accepted.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { input, objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTopic, recordTopicEvent, TOPIC_EVENT_COLUMNS, TOPIC_FIELD_SCHEMAS, type TopicEventRow, type TopicFields } from './topic-view.js';

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
        // Refused with a message that says why, rather than as an unknown field: it decides for
        // every contact without a choice, so changing it would silently re-subscribe people.
        default_subscription: {
          not: {},
          description: 'Fixed once the topic is created: refused.',
          'x-message': 'be left out (the `default_subscription` of a topic cannot be changed)',
        },
      }),
      response: { status: 200, schema: objectId('topic') },
    },
    async handler({ principal, params, body }) {
      const fields = body as TopicFields & { id?: string };
      if (fields.id !== undefined && fields.id.toLowerCase() !== params.id?.toLowerCase()) {
        throw validation('The `id` field must match the topic in the path.');
      }
      const id = await db.tx(async (q) => {
        const topic = await findTopic(q, principal.accountId, params.id, { lock: true });
        const row = await q.one<TopicEventRow>(
          `UPDATE topics SET name = $2, description = $3, visibility = $4, updated_at = now() WHERE id = $1 RETURNING ${TOPIC_EVENT_COLUMNS}`,
          [
            topic.id,
            fields.name ?? topic.name,
            fields.description === undefined ? topic.description : fields.description,
            fields.visibility ?? topic.visibility,
          ],
        );
        await recordTopicEvent(q, principal.accountId, 'topic.updated', row!);
        return topic.id;
      });
      return { body: { object: 'topic', id } };
    },
  };
}
