// Who a broadcast goes to, as SQL over its segment's members (contacts `c`, memberships `sc`):
// the one definition the fan-out walks (fan-out-chunk.ts) and GET
// /broadcasts/:id/recipients-count counts (count-recipients.ts). Change it here and both follow.
//
// A member gets the broadcast unless it unsubscribed from everything or, for a broadcast with a
// topic, is not subscribed to the topic (its own choice in contact_topics, else the topic's
// default_subscription; a topic that is not the account's subscribes nobody). Addresses on the
// suppression list are the accept pipeline's to leave out (suppressions/suppression-list.ts).

/** SQL placeholders (e.g. `$1`) of the broadcast's segment, account and topic (null: none). */
export interface AudienceParams {
  segment: string;
  account: string;
  topic: string;
}

/** FROM … WHERE body: the segment's members joined to their contacts, `sc` and `c`. */
export function segmentMembers(p: AudienceParams): string {
  return `segment_contacts sc
       JOIN contacts c ON c.id = sc.contact_id AND c.account_id = ${p.account}
      WHERE sc.segment_id = ${p.segment}`;
}

/** The contact has not unsubscribed from every broadcast. */
export const NOT_UNSUBSCRIBED = 'NOT c.unsubscribed';

/** The broadcast has no topic, or the contact is subscribed to it; never null. */
export function subscribedToTopic(p: AudienceParams): string {
  return `(${p.topic}::uuid IS NULL OR COALESCE(
              (SELECT ct.subscription FROM contact_topics ct WHERE ct.contact_id = c.id AND ct.topic_id = ${p.topic}::uuid),
              (SELECT t.default_subscription FROM topics t WHERE t.id = ${p.topic}::uuid AND t.account_id = ${p.account}),
              'opt_out') = 'opt_in')`;
}
