// What the unsubscribe page reads and changes for one contact, reached through a broadcast's
// signed link (unsubscribe-links.ts). Every change goes through the contact store
// (updateContact, setTopicSubscriptions), so contact.updated is recorded in the same
// transaction, and the broadcast that carried the link is noted when the contact left
// through it (broadcast_unsubscribes, read by GET /broadcasts/:id/recipients?type=unsubscribed).
//
// Topics shown: the account's public topics, and the broadcast's own topic even when private
// (the contact is reading mail sent under it).
import type { Queryable } from '../db/database.js';
import { countUnsubscribe } from '../events/email-metrics.js';
import { findContact, setTopicSubscriptions, updateContact, type Contact } from './contact-store.js';

export interface TopicPreference {
  id: string;
  name: string;
  description: string | null;
  subscribed: boolean;
}

export interface Preferences {
  contact: Contact;
  topics: TopicPreference[];
  /** The topic of the broadcast that carried the link, if any. */
  broadcastTopicId: string | null;
}

/** The contact behind a link and its topic choices; undefined when the contact is gone. */
export async function loadPreferences(q: Queryable, contactId: string, broadcastId: string): Promise<Preferences | undefined> {
  const owner = await q.one<{ account_id: string }>('SELECT account_id FROM contacts WHERE id = $1', [contactId]);
  if (!owner) return undefined;
  const contact = await findContact(q, owner.account_id, contactId);
  if (!contact) return undefined;
  const broadcast = await q.one<{ topic_id: string | null }>('SELECT topic_id FROM broadcasts WHERE id = $1 AND account_id = $2', [
    broadcastId,
    contact.accountId,
  ]);
  const broadcastTopicId = broadcast?.topic_id ?? null;
  const rows = await q.query<TopicPreference>(
    `SELECT t.id, t.name, t.description, COALESCE(ct.subscription, t.default_subscription) = 'opt_in' AS subscribed
       FROM topics t LEFT JOIN contact_topics ct ON ct.topic_id = t.id AND ct.contact_id = $2
      WHERE t.account_id = $1 AND (t.visibility = 'public' OR t.id = $3::uuid)
      ORDER BY t.created_at, t.id`,
    [contact.accountId, contact.id, broadcastTopicId],
  );
  const topics = rows.map((r) => ({ id: r.id, name: r.name, description: r.description ?? null, subscribed: r.subscribed }));
  return { contact, topics, broadcastTopicId };
}

/** Unsubscribes the contact from every broadcast (contacts.unsubscribed). */
export async function unsubscribeFromAll(q: Queryable, prefs: Preferences, broadcastId: string): Promise<void> {
  await updateContact(q, prefs.contact.accountId, prefs.contact.id, { unsubscribed: true });
  await noteUnsubscribe(q, prefs, broadcastId);
}

/** Subscribes the contact to broadcasts again (its topic choices stay as they were). */
export async function resubscribe(q: Queryable, prefs: Preferences): Promise<void> {
  await updateContact(q, prefs.contact.accountId, prefs.contact.id, { unsubscribed: false });
}

/** Sets every shown topic: opted in when in `chosen`, opted out otherwise (only changes are written). */
export async function saveTopicChoices(q: Queryable, prefs: Preferences, chosen: Set<string>, broadcastId: string): Promise<void> {
  const changed = prefs.topics.filter((t) => t.subscribed !== chosen.has(t.id));
  if (changed.length === 0) return;
  const choices = changed.map((t) => ({ topicId: t.id, subscription: chosen.has(t.id) ? ('opt_in' as const) : ('opt_out' as const) }));
  await setTopicSubscriptions(q, prefs.contact.accountId, prefs.contact.id, choices);
  if (prefs.broadcastTopicId && !chosen.has(prefs.broadcastTopicId)) await noteUnsubscribe(q, prefs, broadcastId);
}

/** Where the unsubscribe came from; the first from a broadcast counts in the email metrics. */
async function noteUnsubscribe(q: Queryable, prefs: Preferences, broadcastId: string): Promise<void> {
  const noted = await q.query(
    `INSERT INTO broadcast_unsubscribes (broadcast_id, contact_id)
     SELECT id, $2 FROM broadcasts WHERE id = $1 AND account_id = $3
     ON CONFLICT DO NOTHING RETURNING 1`,
    [broadcastId, prefs.contact.id, prefs.contact.accountId],
  );
  if (noted.length > 0) await countUnsubscribe(q, prefs.contact.accountId, broadcastId, prefs.contact.id);
}
