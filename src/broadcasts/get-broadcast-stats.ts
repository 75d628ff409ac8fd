// GET /broadcasts/:id/stats (a Postline addition, for the dashboard): how many of a broadcast's
// recipients were sent, delivered, opened, clicked, bounced, complained, unsubscribed through
// its link or suppressed. Each figure counts the recipients GET /broadcasts/:id/recipients
// lists for that `type` (NOTE: coupled with BY_TYPE in list-recipients.ts: change the two
// together; test/broadcasts/broadcast-stats.test.ts checks they agree).
//
// One pass over the broadcast's emails (the emails_broadcast_contact index), each with one
// probe of its queue rows (deliveries_email) and one of its events (events_email), instead
// of one probe per figure: the counts of a 100,000-recipient broadcast read ~200,000 index
// entries, not 800,000.
import type { Route } from '../api/route.js';
import { constant, integer, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findBroadcast } from './find-broadcast.js';

const FIGURES = ['recipients', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed', 'suppressed'] as const;

const DESCRIPTIONS: Record<(typeof FIGURES)[number], string> = {
  recipients: 'Contacts the broadcast made an email for so far (suppressed ones included).',
  sent: 'Recipients whose email was queued (all but the suppressed).',
  delivered: 'Recipients whose MX host accepted the email.',
  opened: 'Recipients who opened it at least once (open tracking).',
  clicked: 'Recipients who clicked a link at least once (click tracking).',
  bounced: 'Recipients whose email bounced.',
  complained: 'Recipients who marked it as spam.',
  unsubscribed: "Recipients who unsubscribed through the broadcast's link.",
  suppressed: 'Recipients on the suppression list, never attempted.',
};

/** One count per figure (FIGURES). */
interface StatsRow {
  recipients: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  unsubscribed: number;
  suppressed: number;
}

const BROADCAST_STATS_SCHEMA = object({
  object: constant('broadcast_stats'),
  id: uuid(),
  ...Object.fromEntries(FIGURES.map((f) => [f, integer({ minimum: 0, description: DESCRIPTIONS[f] })])),
});

export function getBroadcastStats(db: Db): Route {
  return {
    method: 'GET',
    url: '/broadcasts/:id/stats',
    doc: {
      summary: "Count a broadcast's recipients by what happened to them",
      description: 'Each figure is the number of recipients `GET /broadcasts/{id}/recipients` lists for the `type` of the same name.',
      params: { id: uuid() },
      response: { status: 200, schema: BROADCAST_STATS_SCHEMA },
      addition: true,
    },
    async handler({ principal, params }) {
      const broadcast = await findBroadcast(db, principal.accountId, params.id!);
      const row = await db.one<StatsRow>(
        `SELECT count(*)::int AS recipients,
                count(*) FILTER (WHERE d.sent)::int AS sent,
                count(*) FILTER (WHERE d.delivered)::int AS delivered,
                count(*) FILTER (WHERE d.suppressed)::int AS suppressed,
                count(*) FILTER (WHERE v.opened)::int AS opened,
                count(*) FILTER (WHERE v.clicked)::int AS clicked,
                count(*) FILTER (WHERE v.bounced)::int AS bounced,
                count(*) FILTER (WHERE v.complained)::int AS complained,
                (SELECT count(*)::int FROM broadcast_unsubscribes u
                  WHERE u.broadcast_id = $1
                    AND EXISTS (SELECT 1 FROM emails m WHERE m.broadcast_id = u.broadcast_id AND m.contact_id = u.contact_id)) AS unsubscribed
           FROM emails e
          CROSS JOIN LATERAL (
                SELECT bool_or(status <> 'suppressed') AS sent, bool_or(status = 'delivered') AS delivered, bool_or(status = 'suppressed') AS suppressed
                  FROM deliveries WHERE email_id = e.id) d
          CROSS JOIN LATERAL (
                SELECT bool_or(type = 'email.opened') AS opened, bool_or(type = 'email.clicked') AS clicked,
                       bool_or(type = 'email.bounced') AS bounced, bool_or(type = 'email.complained') AS complained
                  FROM events
                 WHERE email_id = e.id AND type IN ('email.opened', 'email.clicked', 'email.bounced', 'email.complained')) v
          WHERE e.broadcast_id = $1 AND e.account_id = $2`,
        [broadcast.id, principal.accountId],
      );
      return { body: { object: 'broadcast_stats', id: broadcast.id, ...Object.fromEntries(FIGURES.map((f) => [f, row![f]])) } };
    },
  };
}
