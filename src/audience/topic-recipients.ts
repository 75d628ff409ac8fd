// Who may receive an email scoped to a topic (`topic_id` on POST /emails, resend-openapi): a
// contact by its own choice for the topic, else the topic's default subscription; an address
// that is no contact of the account by the default alone. A contact unsubscribed from
// everything receives nothing scoped to a topic. One query for any number of emails.
import type { Queryable } from '../db/database.js';
import type { Subscription } from './contact-store.js';

interface TopicScope {
  topicId: string;
  /** Bare addresses, any case. */
  addresses: string[];
}

interface TopicDefaultRow {
  id: string;
  default_subscription: Subscription;
}

/** An address of a scope that is a contact of the account, with its choice for the scope's topic (null: none). */
interface ContactChoiceRow {
  topic_id: string;
  address: string;
  unsubscribed: boolean;
  subscription: Subscription | null;
}

/**
 * For each scope: undefined when the topic is not this account's, else the addresses (lower-
 * cased) that must not receive it.
 */
export async function optedOutOfTopics(q: Queryable, accountId: string, scopes: TopicScope[]): Promise<(Set<string> | undefined)[]> {
  if (scopes.length === 0) return [];
  const pairs = scopes.flatMap((s) => s.addresses.map((a) => ({ topicId: s.topicId, address: a.toLowerCase() })));
  const topics = await q.query<TopicDefaultRow>(`SELECT id, default_subscription FROM topics WHERE account_id = $1 AND id = ANY($2::uuid[])`, [
    accountId,
    [...new Set(scopes.map((s) => s.topicId))],
  ]);
  const defaults = new Map(topics.map((t) => [t.id, t.default_subscription]));
  const rows = pairs.length
    ? await q.query<ContactChoiceRow>(
        `SELECT v.topic_id::text AS topic_id, v.address, c.unsubscribed, ct.subscription
           FROM unnest($2::uuid[], $3::text[]) AS v(topic_id, address)
           JOIN contacts c ON c.account_id = $1 AND c.email = v.address
           LEFT JOIN contact_topics ct ON ct.contact_id = c.id AND ct.topic_id = v.topic_id`,
        [accountId, pairs.map((p) => p.topicId), pairs.map((p) => p.address)],
      )
    : [];
  const contacts = new Map(rows.map((r) => [`${r.topic_id} ${r.address}`, r]));
  return scopes.map((scope) => {
    const fallback = defaults.get(scope.topicId);
    if (fallback === undefined) return undefined;
    const out = new Set<string>();
    for (const raw of scope.addresses) {
      const address = raw.toLowerCase();
      const contact = contacts.get(`${scope.topicId} ${address}`);
      const subscribed = contact ? !contact.unsubscribed && (contact.subscription ?? fallback) === 'opt_in' : fallback === 'opt_in';
      if (!subscribed) out.add(address);
    }
    return out;
  });
}
