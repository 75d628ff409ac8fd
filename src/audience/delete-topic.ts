// DELETE /topics/:id: removes the topic and every contact's choice for it.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { deletedObject, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTopic, recordTopicEvent, TOPIC_EVENT_COLUMNS, type TopicEventRow } from './topic-view.js';

export function deleteTopic(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/topics/:id',
    doc: { summary: 'Delete a topic', params: { id: uuid() }, response: { status: 200, schema: deletedObject('topic') } },
    async handler({ principal, params }) {
      const topic = await findTopic(db, principal.accountId, params.id);
      const deleted = await db.tx(async (q) => {
        const row = await q.one<TopicEventRow>(`DELETE FROM topics WHERE id = $1 AND account_id = $2 RETURNING ${TOPIC_EVENT_COLUMNS}`, [
          topic.id,
          principal.accountId,
        ]);
        if (row) await recordTopicEvent(q, principal.accountId, 'topic.deleted', row);
        return row;
      });
      if (!deleted) throw notFound('Topic');
      return { body: { object: 'topic', id: topic.id, deleted: true } };
    },
  };
}
