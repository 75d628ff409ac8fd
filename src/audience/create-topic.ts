// POST /topics {name, default_subscription, description?, visibility?}: 201 {object:'topic', id}.
import { missingField } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { input, objectId } from '../api/schema.js';
import { objectBody, optionalEnum, rejectUnknown, requiredString } from '../api/validate.js';
import type { Db } from '../db/database.js';
import { MAX_TOPIC_NAME, parseDescription, recordTopicEvent, SUBSCRIPTIONS, TOPIC_EVENT_COLUMNS, TOPIC_FIELD_SCHEMAS, VISIBILITIES } from './topic-view.js';

export function createTopic(db: Db): Route {
  return {
    method: 'POST',
    url: '/topics',
    doc: {
      summary: 'Create a topic',
      body: input(TOPIC_FIELD_SCHEMAS, ['name', 'default_subscription']),
      response: { status: 201, schema: objectId('topic') },
    },
    async handler({ principal, body: raw }) {
      const body = objectBody(raw);
      rejectUnknown(body, ['name', 'default_subscription', 'description', 'visibility']);
      const name = requiredString(body, 'name', { max: MAX_TOPIC_NAME });
      if (body.default_subscription === undefined || body.default_subscription === null) throw missingField('default_subscription');
      const defaultSubscription = optionalEnum(body, 'default_subscription', SUBSCRIPTIONS)!;
      const description = parseDescription(body) ?? null;
      const visibility = optionalEnum(body, 'visibility', VISIBILITIES) ?? 'private';
      const id = crypto.randomUUID();
      await db.tx(async (q) => {
        const row = await q.one(
          `INSERT INTO topics (id, account_id, name, description, default_subscription, visibility) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING ${TOPIC_EVENT_COLUMNS}`,
          [id, principal.accountId, name, description, defaultSubscription, visibility],
        );
        await recordTopicEvent(q, principal.accountId, 'topic.created', row!);
      });
      return { status: 201, body: { object: 'topic', id } };
    },
  };
}
