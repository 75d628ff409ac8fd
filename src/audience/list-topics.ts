// GET /topics: the account's topics, newest first, 20 per page unless `limit` says otherwise
// (a newer Resend list: it always paginates).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { TOPIC_COLUMNS, topicSummary } from './topic-view.js';

export function listTopics(db: Db): Route {
  return {
    method: 'GET',
    url: '/topics',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'topics',
        columns: TOPIC_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query),
      });
      return { body: envelope(rows.map(topicSummary), hasMore) };
    },
  };
}
