// GET /emails/:id/attempts: every delivery attempt of one of the caller's emails, oldest first
// (delivery_attempts, written with the outcomes in outcomes.ts): the recipient, the MX host
// (or relay, or the sandbox's catcher) reached, the reply with its code, and what it concluded.
// At most MAX per answer; `has_more` says when there were more.
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { array, boolean, constant, integer, nullable, object, oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';

const MAX = 500;
const OUTCOMES = ['delivered', 'complained', 'deferred', 'bounced', 'failed', 'suppressed'] as const;

const ATTEMPT_SCHEMA = object({
  recipient: string(),
  mx_host: nullable(string({ description: 'The host the attempt reached or tried first; null when it never got that far.' })),
  code: nullable(integer({ description: "The SMTP reply code, when the reply has one (a connection failure's has none)." })),
  response: string({ description: 'The reply, or why there was none.' }),
  outcome: oneOfValues(OUTCOMES),
  attempted_at: string({ format: 'date-time' }),
});

export function listDeliveryAttempts(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id/attempts',
    doc: {
      summary: "An email's delivery attempts, oldest first",
      description: `Every attempt at every recipient. At most ${MAX}; \`has_more\` says whether there were more.`,
      tags: ['emails'],
      addition: true,
      response: { status: 200, schema: object({ object: constant('list'), has_more: boolean(), data: array(ATTEMPT_SCHEMA) }) },
    },
    async handler({ principal, params }) {
      const email = isUuid(params.id) ? await db.one('SELECT id FROM emails WHERE id = $1 AND account_id = $2', [params.id, principal.accountId]) : undefined;
      if (!email) throw notFound('Email');
      const rows = await db.query<{ recipient: string; mx: string | null; response: string; outcome: string; attempted_at: Date }>(
        `SELECT recipient, mx, response, outcome, attempted_at FROM delivery_attempts
          WHERE email_id = $1 ORDER BY attempted_at, delivery_id LIMIT $2`,
        [params.id, MAX + 1],
      );
      const data = rows.slice(0, MAX).map((r) => ({
        recipient: r.recipient,
        mx_host: r.mx,
        code: Number(/^([2-5]\d\d)\b/.exec(r.response)?.[1]) || null,
        response: r.response,
        outcome: r.outcome,
        attempted_at: r.attempted_at.toISOString(),
      }));
      return { body: { object: 'list', has_more: rows.length > MAX, data } };
    },
  };
}
