// GET /topics/:id.
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTopic, TOPIC_SCHEMA, topicDetail } from './topic-view.js';

export function getTopic(db: Db): Route {
  return {
    method: 'GET',
    url: '/topics/:id',
    doc: { summary: 'Retrieve a topic', params: { id: uuid() }, response: { status: 200, schema: TOPIC_SCHEMA } },
    async handler({ principal, params }) {
      return { body: topicDetail(await findTopic(db, principal.accountId, params.id)) };
    },
  };
}
