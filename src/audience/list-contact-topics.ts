// GET /contacts/:contact/topics: every topic of the account with this contact's
// subscription: its explicit choice, else the topic's default_subscription. Newest topic
// first, 20 per page unless `limit` says otherwise.
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { pathContact } from './contact-paths.js';

export function listContactTopics(db: Db): Route {
  return {
    method: 'GET',
    url: '/contacts/:contact/topics',
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const contact = await pathContact(db, principal.accountId, params);
      const { rows, hasMore } = await listPage(db, {
        table: 'topics',
        columns: `id, name, description, COALESCE(
            (SELECT subscription FROM contact_topics c WHERE c.contact_id = $2::uuid AND c.topic_id = topics.id),
            default_subscription) AS subscription`,
        where: 'account_id = $1',
        params: [principal.accountId, contact.id],
        page,
      });
      return {
        body: envelope(
          rows.map((r) => ({
            id: r.id as string,
            name: r.name as string,
            description: (r.description ?? null) as string | null,
            subscription: r.subscription as string,
          })),
          hasMore,
        ),
      };
    },
  };
}
