// GET /broadcasts/:id/clicked-links: each link clicked in the broadcast's emails (recorded by
// click tracking as email.clicked, src/tracking/), with its clicks and unique clicks (how
// many recipients clicked it), most clicked first.
import type { Route } from '../api/route.js';
import { integer, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findBroadcast } from './find-broadcast.js';
import { offsetEnvelope, offsetListDoc, parseOffsetPage } from './offset-page.js';

/** `url` is read out of the event's data: null for an event without `click.link`. */
interface ClickedLinkRow {
  url: string | null;
  clicks: number;
  unique_clicks: number;
}

export function listClickedLinks(db: Db): Route {
  return {
    method: 'GET',
    url: '/broadcasts/:id/clicked-links',
    doc: {
      ...offsetListDoc("List the links clicked in a broadcast's emails", object({ url: string(), clicks: integer(), unique_clicks: integer() })),
      params: { id: uuid() },
    },
    async handler({ principal, params, query }) {
      const page = parseOffsetPage(query);
      const broadcast = await findBroadcast(db, principal.accountId, params.id!);
      const rows = await db.query<ClickedLinkRow>(
        `SELECT v.data->'click'->>'link' AS url, count(*)::int AS clicks, count(DISTINCT v.email_id)::int AS unique_clicks
           FROM emails e JOIN events v ON v.email_id = e.id AND v.type = 'email.clicked'
          WHERE e.broadcast_id = $1 AND e.account_id = $2
          GROUP BY 1
          ORDER BY clicks DESC, url
         OFFSET $3 LIMIT $4`,
        [broadcast.id, principal.accountId, page.offset, page.take],
      );
      return {
        body: offsetEnvelope(
          rows.map((r) => ({ url: r.url, clicks: r.clicks, unique_clicks: r.unique_clicks })),
          page,
        ),
      };
    },
  };
}
