// DELETE /topics/:id: removes the topic and every contact's choice for it.
import type { Route } from '../api/route.js';
import { deletedObject, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTopic } from './topic-view.js';

export function deleteTopic(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/topics/:id',
    doc: { summary: 'Delete a topic', params: { id: uuid() }, response: { status: 200, schema: deletedObject('topic') } },
    async handler({ principal, params }) {
      const topic = await findTopic(db, principal.accountId, params.id);
      await db.query('DELETE FROM topics WHERE id = $1 AND account_id = $2', [topic.id, principal.accountId]);
      return { body: { object: 'topic', id: topic.id, deleted: true } };
    },
  };
}
