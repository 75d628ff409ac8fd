// POST /topics {name, default_subscription, description?, visibility?}: 201 {object:'topic', id}.
import type { Route } from '../api/route.js';
import { input, objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { recordTopicEvent, TOPIC_EVENT_COLUMNS, TOPIC_FIELD_SCHEMAS, type TopicEventRow, type TopicFields } from './topic-view.js';

export function createTopic(db: Db): Route {
  return {
    method: 'POST',
    url: '/topics',
    doc: {
      summary: 'Create a topic',
      body: input(TOPIC_FIELD_SCHEMAS, ['name', 'default_subscription']),
      response: { status: 201, schema: objectId('topic') },
    },
    async handler({ principal, body }) {
      const fields = body as Required<Pick<TopicFields, 'name' | 'default_subscription'>> & TopicFields;
      const id = crypto.randomUUID();
      await db.tx(async (q) => {
        const row = await q.one<TopicEventRow>(
          `INSERT INTO topics (id, account_id, name, description, default_subscription, visibility) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING ${TOPIC_EVENT_COLUMNS}`,
          [id, principal.accountId, fields.name, fields.description ?? null, fields.default_subscription, fields.visibility ?? 'private'],
        );
        await recordTopicEvent(q, principal.accountId, 'topic.created', row!);
      });
      return { status: 201, body: { object: 'topic', id } };
    },
  };
}
