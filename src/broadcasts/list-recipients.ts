// GET /broadcasts/:id/recipients?type=…[&email=…][&bounce_type=…]: who the broadcast reached,
// by what happened to them (resend-compat-notes §2.8), in the order the fan-out sent them.
// Read from the broadcast's emails (one per contact) and what was recorded for them: their
// queue rows (sent, delivered, suppressed), their events (opened and clicked with counts,
// bounced with its type, complained) and unsubscribes through the broadcast's link.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { array, integer, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findBroadcast } from './find-broadcast.js';
import { offsetEnvelope, offsetListDoc, parseOffsetPage } from './offset-page.js';

const TYPES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed', 'suppressed'] as const;
type RecipientType = (typeof TYPES)[number];
const BOUNCE_TYPES = ['permanent', 'transient', 'undetermined'];

const queued = (condition: string) => `EXISTS (SELECT 1 FROM deliveries d WHERE d.email_id = e.id AND ${condition})`;
const recorded = (event: string) => `EXISTS (SELECT 1 FROM events v WHERE v.email_id = e.id AND v.type = '${event}')`;
const countOf = (event: string) => `(SELECT count(*) FROM events v WHERE v.email_id = e.id AND v.type = '${event}')::int AS count`;

/** Per type: which emails are listed, and the extra columns they report. */
const BY_TYPE: Record<RecipientType, { where: string; columns: string[] }> = {
  sent: { where: queued(`d.status <> 'suppressed'`), columns: [] },
  delivered: { where: queued(`d.status = 'delivered'`), columns: [] },
  suppressed: { where: queued(`d.status = 'suppressed'`), columns: [] },
  opened: { where: recorded('email.opened'), columns: [countOf('email.opened')] },
  clicked: {
    where: recorded('email.clicked'),
    columns: [
      countOf('email.clicked'),
      `(SELECT json_agg(json_build_object('url', l.url, 'clicks', l.clicks) ORDER BY l.clicks DESC, l.url)
          FROM (SELECT v.data->'click'->>'link' AS url, count(*)::int AS clicks FROM events v
                 WHERE v.email_id = e.id AND v.type = 'email.clicked' GROUP BY 1) l) AS clicked_links`,
    ],
  },
  bounced: {
    where: recorded('email.bounced'),
    columns: [
      `(SELECT CASE lower(v.data->'bounce'->>'type') WHEN 'permanent' THEN 'permanent' WHEN 'transient' THEN 'transient'
                    ELSE 'undetermined' END
          FROM events v WHERE v.email_id = e.id AND v.type = 'email.bounced' ORDER BY v.id DESC LIMIT 1) AS bounce_type`,
    ],
  },
  complained: { where: recorded('email.complained'), columns: [] },
  unsubscribed: {
    where: 'EXISTS (SELECT 1 FROM broadcast_unsubscribes u WHERE u.broadcast_id = e.broadcast_id AND u.contact_id = e.contact_id)',
    columns: [],
  },
};

function parseType(query: Record<string, string | undefined>): { type: RecipientType; bounceType: string | undefined } {
  const type = query.type as RecipientType;
  if (!TYPES.includes(type)) throw validation(`The \`type\` parameter must be one of ${TYPES.map((t) => `"${t}"`).join(' | ')}.`);
  const bounceType = query.bounce_type;
  if (bounceType !== undefined) {
    if (type !== 'bounced') throw validation('The `bounce_type` parameter can only be used with `type=bounced`.');
    if (!BOUNCE_TYPES.includes(bounceType)) throw validation('The `bounce_type` parameter must be one of "permanent" | "transient" | "undetermined".');
  }
  return { type, bounceType };
}

/** A recipient's email; the columns after `id` are those of the type asked for (BY_TYPE). */
interface RecipientRow {
  contact_id: string | null;
  email: string;
  created_at: Date;
  id: string;
  /** opened, clicked */
  count?: number;
  /** clicked; `url` is read out of the event's data (null for an event without `click.link`). */
  clicked_links?: { url: string | null; clicks: number }[] | null;
  /** bounced */
  bounce_type?: string;
}

function recipient(row: RecipientRow, type: RecipientType) {
  const base = { contact_id: row.contact_id ?? null, email: row.email };
  if (type === 'opened') return { ...base, count: row.count };
  if (type === 'clicked') return { ...base, count: row.count, clicked_links: row.clicked_links ?? [] };
  if (type === 'bounced') return { ...base, bounce_type: row.bounce_type };
  return base;
}

export function listRecipients(db: Db): Route {
  return {
    method: 'GET',
    url: '/broadcasts/:id/recipients',
    doc: {
      ...offsetListDoc(
        'List the recipients of a broadcast by what happened to them',
        object(
          {
            contact_id: nullable(uuid()),
            email: string(),
            count: integer({ description: 'opened, clicked: how many times.' }),
            clicked_links: array(object({ url: string(), clicks: integer() }), { description: 'clicked only.' }),
            bounce_type: oneOfValues(BOUNCE_TYPES, { description: 'bounced only.' }),
          },
          ['contact_id', 'email'],
        ),
        {
          type: oneOfValues(TYPES),
          email: string({ description: 'Only this recipient.' }),
          bounce_type: oneOfValues(BOUNCE_TYPES, { description: 'With type=bounced.' }),
        },
      ),
      requiredQuery: ['type'],
      params: { id: uuid() },
    },
    async handler({ principal, params, query }) {
      const { type, bounceType } = parseType(query);
      const page = parseOffsetPage(query);
      const broadcast = await findBroadcast(db, principal.accountId, params.id!);
      const args: unknown[] = [broadcast.id, principal.accountId];
      const filters = [BY_TYPE[type].where];
      if (query.email !== undefined) filters.push(`lower(e.to_addresses[1]) = lower($${args.push(query.email)})`);
      const outer = bounceType ? `WHERE r.bounce_type = $${args.push(bounceType)}` : '';
      const rows = await db.query<RecipientRow>(
        `SELECT r.* FROM (
           SELECT e.contact_id, e.to_addresses[1] AS email, e.created_at, e.id${BY_TYPE[type].columns.map((c) => `, ${c}`).join('')}
             FROM emails e
            WHERE e.broadcast_id = $1 AND e.account_id = $2 AND ${filters.join(' AND ')}
         ) r ${outer}
         ORDER BY r.created_at, r.id
         OFFSET $${args.push(page.offset)} LIMIT $${args.push(page.take)}`,
        args,
      );
      return {
        body: offsetEnvelope(
          rows.map((row) => recipient(row, type)),
          page,
        ),
      };
    },
  };
}
