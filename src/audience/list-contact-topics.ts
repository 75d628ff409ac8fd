// GET /contacts/:contact/topics: every topic of the account with this contact's
// subscription: its explicit choice, else the topic's default_subscription. Newest topic
// first, 20 per page unless `limit` says otherwise.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CONTACT_KEY_SCHEMA, pathContact } from './contact-paths.js';
import type { Subscription } from './contact-store.js';

/** A topic with the contact's subscription to it. */
interface ContactTopicRow {
  id: string;
  name: string;
  description: string | null;
  subscription: Subscription;
}

export function listContactTopics(db: Db): Route {
  return {
    method: 'GET',
    url: '/contacts/:contact/topics',
    doc: {
      ...listDoc(
        "List every topic with a contact's subscription",
        object({ id: uuid(), name: string(), description: nullable(string()), subscription: oneOfValues(['opt_in', 'opt_out']) }),
      ),
      params: { contact: CONTACT_KEY_SCHEMA },
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const contact = await pathContact(db, principal.accountId, params);
      const { rows, hasMore } = await listPage<ContactTopicRow>(db, {
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
            id: r.id,
            name: r.name,
            description: r.description ?? null,
            subscription: r.subscription,
          })),
          hasMore,
        ),
      };
    },
  };
}
