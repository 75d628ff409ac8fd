// GET /topics/:id.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findTopic, topicDetail } from './topic-view.js';

export function getTopic(db: Db): Route {
  return {
    method: 'GET',
    url: '/topics/:id',
    async handler({ principal, params }) {
      return { body: topicDetail(await findTopic(db, principal.accountId, params.id)) };
    },
  };
}
