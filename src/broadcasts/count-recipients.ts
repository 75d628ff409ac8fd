// GET /broadcasts/:id/recipients-count (a Postline addition, for the dashboard's send
// confirmation): how many contacts the broadcast would go to if it were sent now, and how many
// of its segment are left out and why. Counted with the fan-out's own conditions
// (broadcast-audience.ts) and the accept pipeline's suppression match
// (suppressions/suppression-list.ts), in one aggregate pass over the segment's memberships:
// each member is probed once for its contact, its topic choice and the suppression list.
//
// The figures are disjoint, each member counted once, in this order: unsubscribed, not
// subscribed to the topic, suppressed, else a recipient; they add up to segment_contacts.
import type { Route } from '../api/route.js';
import { constant, integer, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { onSuppressionList } from '../suppressions/suppression-list.js';
import { type AudienceParams, NOT_UNSUBSCRIBED, segmentMembers, subscribedToTopic } from './broadcast-audience.js';
import { findBroadcast } from './find-broadcast.js';

const FIGURES = ['segment_contacts', 'unsubscribed', 'not_subscribed_to_topic', 'suppressed', 'recipients'] as const;
type Figure = (typeof FIGURES)[number];

const DESCRIPTIONS: Record<Figure, string> = {
  segment_contacts: "Contacts in the broadcast's segment.",
  unsubscribed: 'Of them, contacts unsubscribed from every broadcast.',
  not_subscribed_to_topic: 'Of the rest, contacts not subscribed to the broadcast’s topic (0 without a topic).',
  suppressed: 'Of the rest, contacts whose address is on the suppression list: recorded as suppressed, never attempted.',
  recipients: 'The contacts the broadcast goes to if sent now.',
};

const AUDIENCE: AudienceParams = { segment: '$1', account: '$2', topic: '$3' };

export function countRecipients(db: Db): Route {
  return {
    method: 'GET',
    url: '/broadcasts/:id/recipients-count',
    doc: {
      summary: 'Count the contacts a broadcast goes to',
      description:
        "How many contacts of the broadcast's segment it goes to if sent now, and how many are left out as unsubscribed, not subscribed to its topic or suppressed. For a broadcast already sent, the figures are its audience as it is now, not as it was.",
      params: { id: uuid() },
      response: {
        status: 200,
        schema: object({
          object: constant('broadcast_recipients'),
          id: uuid(),
          ...Object.fromEntries(FIGURES.map((f) => [f, integer({ minimum: 0, description: DESCRIPTIONS[f] })])),
        }),
      },
      addition: true,
    },
    async handler({ principal, params }) {
      const b = await findBroadcast(db, principal.accountId, params.id!);
      const row = await db.one<Record<Figure, number>>(
        `SELECT count(*)::int AS segment_contacts,
                count(*) FILTER (WHERE NOT m.wanted)::int AS unsubscribed,
                count(*) FILTER (WHERE m.wanted AND NOT m.subscribed)::int AS not_subscribed_to_topic,
                count(*) FILTER (WHERE m.wanted AND m.subscribed AND m.suppressed)::int AS suppressed,
                count(*) FILTER (WHERE m.wanted AND m.subscribed AND NOT m.suppressed)::int AS recipients
           FROM (SELECT ${NOT_UNSUBSCRIBED} AS wanted, ${subscribedToTopic(AUDIENCE)} AS subscribed,
                        ${onSuppressionList(AUDIENCE.account, 'c.email')} AS suppressed
                   FROM ${segmentMembers(AUDIENCE)}) m`,
        [b.segment_id, principal.accountId, b.topic_id],
      );
      return { body: { object: 'broadcast_recipients', id: b.id, ...Object.fromEntries(FIGURES.map((f) => [f, row![f]])) } };
    },
  };
}
