// GET /topics: the account's topics, newest first, 20 per page unless `limit` says otherwise
// (a newer Resend list: it always paginates).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { TOPIC_COLUMNS, TOPIC_SUMMARY_SCHEMA, type TopicRow, topicSummary } from './topic-view.js';

export function listTopics(db: Db): Route {
  return accountList<TopicRow>(db, {
    url: '/topics',
    table: 'topics',
    columns: TOPIC_COLUMNS,
    view: (rows) => rows.map(topicSummary),
    doc: { summary: 'List topics', item: TOPIC_SUMMARY_SCHEMA },
  });
}
