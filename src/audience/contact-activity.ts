// GET /contacts/:contact/activity (Postline's addition): what happened with one contact, for its
// page in the dashboard: the newest emails sent to its address (with their opens and clicks),
// the broadcasts it unsubscribed from, and its automation runs. Each list is the newest
// ACTIVITY_LIMIT, read through an index of its own: deliveries_recipient (0027) for the emails,
// events_email (0001) for their opens and clicks, and 0064's for unsubscribes and runs. Reads
// only: the rows belong to emails/, events/, broadcasts/ and automations/.
import type { Route } from '../api/route.js';
import { array, constant, integer, isoTime, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CONTACT_KEY_SCHEMA, pathContact } from './contact-paths.js';

/** The newest items of each kind shown. */
const ACTIVITY_LIMIT = 25;

interface EmailRow {
  id: string;
  subject: string;
  from_address: string;
  last_event: string;
  broadcast_id: string | null;
  created_at: Date;
  opens: number;
  clicks: number;
}

interface UnsubscribeRow {
  broadcast_id: string;
  broadcast_name: string | null;
  created_at: Date;
}

interface RunRow {
  id: string;
  automation_id: string;
  automation_name: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  started_at: Date;
  completed_at: Date | null;
}

// The contact's address as a recipient (to, cc or bcc: each has its delivery row), its emails
// newest first, then the opens and clicks of those shown only, from their events (one pass each).
const EMAILS_SQL = `
WITH sent AS (
  SELECT DISTINCT d.email_id FROM deliveries d WHERE d.account_id = $1 AND lower(d.recipient) = lower($2)
), newest AS (
  SELECT e.id, e.subject, e.from_address, e.last_event, e.broadcast_id, e.created_at
    FROM emails e JOIN sent ON sent.email_id = e.id
   WHERE e.account_id = $1
   ORDER BY e.created_at DESC, e.id DESC
   LIMIT $3
)
SELECT n.*, t.opens, t.clicks
  FROM newest n
  CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE v.type = 'email.opened')::int AS opens, count(*) FILTER (WHERE v.type = 'email.clicked')::int AS clicks
      FROM events v WHERE v.email_id = n.id AND v.type IN ('email.opened', 'email.clicked')
  ) t
 ORDER BY n.created_at DESC, n.id DESC`;

const UNSUBSCRIBES_SQL = `
SELECT u.broadcast_id, b.name AS broadcast_name, u.created_at
  FROM broadcast_unsubscribes u JOIN broadcasts b ON b.id = u.broadcast_id AND b.account_id = $1
 WHERE u.contact_id = $2
 ORDER BY u.created_at DESC
 LIMIT $3`;

const RUNS_SQL = `
SELECT r.id, r.automation_id, a.name AS automation_name, r.status, r.started_at, r.completed_at
  FROM automation_runs r JOIN automations a ON a.id = r.automation_id
 WHERE r.contact_id = $2 AND r.account_id = $1
 ORDER BY r.created_at DESC, r.id DESC
 LIMIT $3`;

const ACTIVITY_SCHEMA = object({
  object: constant('contact_activity'),
  contact_id: uuid(),
  emails: array(
    object({
      id: uuid(),
      subject: string(),
      from: string(),
      last_event: string(),
      broadcast_id: nullable(uuid()),
      created_at: isoTime(),
      opens: integer({ description: 'Times it was opened (each open the tracking pixel saw).' }),
      clicks: integer({ description: 'Clicks on its tracked links.' }),
    }),
    { description: `The newest ${ACTIVITY_LIMIT} emails sent to the contact's address (to, cc or bcc).` },
  ),
  unsubscribes: array(object({ broadcast_id: uuid(), broadcast_name: nullable(string()), created_at: isoTime() }), {
    description: `The newest ${ACTIVITY_LIMIT} unsubscribes from a broadcast's link (the contact's own \`unsubscribed\` and topics say where it stands now).`,
  }),
  automation_runs: array(
    object({
      id: uuid(),
      automation_id: uuid(),
      automation_name: string(),
      status: oneOfValues(['running', 'completed', 'failed', 'cancelled']),
      started_at: isoTime(),
      completed_at: nullable(isoTime()),
    }),
    { description: `The newest ${ACTIVITY_LIMIT} runs of automations for the contact.` },
  ),
});

export function contactActivity(db: Db): Route {
  return {
    method: 'GET',
    url: '/contacts/:contact/activity',
    doc: {
      summary: "A contact's activity: emails, opens and clicks, unsubscribes, automation runs",
      tags: ['contacts'],
      addition: true,
      params: { contact: CONTACT_KEY_SCHEMA },
      response: { status: 200, schema: ACTIVITY_SCHEMA },
    },
    async handler({ principal, params }) {
      const contact = await pathContact(db, principal.accountId, params);
      const [emails, unsubscribes, runs] = await Promise.all([
        db.query<EmailRow>(EMAILS_SQL, [principal.accountId, contact.email, ACTIVITY_LIMIT]),
        db.query<UnsubscribeRow>(UNSUBSCRIBES_SQL, [principal.accountId, contact.id, ACTIVITY_LIMIT]),
        db.query<RunRow>(RUNS_SQL, [principal.accountId, contact.id, ACTIVITY_LIMIT]),
      ]);
      return {
        body: {
          object: 'contact_activity',
          contact_id: contact.id,
          emails: emails.map((e) => ({
            id: e.id,
            subject: e.subject,
            from: e.from_address,
            last_event: e.last_event,
            broadcast_id: e.broadcast_id,
            created_at: e.created_at.toISOString(),
            opens: e.opens,
            clicks: e.clicks,
          })),
          unsubscribes: unsubscribes.map((u) => ({ broadcast_id: u.broadcast_id, broadcast_name: u.broadcast_name, created_at: u.created_at.toISOString() })),
          automation_runs: runs.map((r) => ({
            id: r.id,
            automation_id: r.automation_id,
            automation_name: r.automation_name,
            status: r.status,
            started_at: r.started_at.toISOString(),
            completed_at: r.completed_at?.toISOString() ?? null,
          })),
        },
      };
    },
  };
}
