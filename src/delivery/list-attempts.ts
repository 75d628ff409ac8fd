// GET /emails/:id/attempts: every delivery attempt of one of the caller's emails, oldest first
// (delivery_attempts, written with the outcomes in outcomes.ts): the recipient, the MX host
// (or relay, or the sandbox's catcher) reached, the reply with its code, and what it concluded.
// Paged as Resend's lists are (`limit`, `after`, `before`, `has_more`), the cursors being
// attempt ids: an email to many recipients, each retried, has many.
import { envelope, listDoc, listOldestFirst, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { integer, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailOr404 } from '../email-row/account-email.js';
const OUTCOMES = ['delivered', 'complained', 'deferred', 'bounced', 'failed', 'suppressed'] as const;

const ATTEMPT_SCHEMA = object({
  id: integer({ description: "The attempt's position among all attempts (increasing); the paging cursor." }),
  recipient: string(),
  mx_host: nullable(string({ description: 'The host the attempt reached or tried first; null when it never got that far.' })),
  code: nullable(integer({ description: "The SMTP reply code, when the reply has one (a connection failure's has none)." })),
  response: string({ description: 'The reply, or why there was none.' }),
  outcome: oneOfValues(OUTCOMES),
  tls: nullable(
    object(
      {
        protocol: nullable(string({ description: 'The TLS protocol of the session (`TLSv1.3`, …); null: the message went in plain text.' })),
        requirement: string({
          description:
            "What the session had to prove and why: `opportunistic`, `encrypted` (the sending domain's tls: enforced), `verified` (the recipient's MTA-STS policy) or `dane` (its TLSA records), with the policy's source.",
        }),
      },
      undefined,
      { description: 'The TLS of the session that carried the message; null when no session did (the reply then says why).' },
    ),
  ),
  attempted_at: string({ format: 'date-time' }),
});

interface DeliveryAttemptRow {
  id: number;
  recipient: string;
  mx: string | null;
  response: string;
  outcome: (typeof OUTCOMES)[number];
  tls_protocol: string | null;
  tls_requirement: string | null;
  attempted_at: Date;
}

export function listDeliveryAttempts(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id/attempts',
    doc: {
      ...listDoc("An email's delivery attempts, oldest first", ATTEMPT_SCHEMA, { defaultLimit: 100, cursor: 'serial' }),
      description: 'Every attempt at every recipient. `after` and `before` are attempt ids; `after` goes on to later attempts.',
      params: { id: uuid() },
      tags: ['emails'],
      addition: true,
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const emailId = await accountEmailOr404(db, principal.accountId, params.id);
      const { rows, hasMore } = await listOldestFirst<DeliveryAttemptRow>(db, {
        table: 'delivery_attempts',
        columns: 'id, recipient, mx, response, outcome, tls_protocol, tls_requirement, attempted_at',
        where: 'email_id = $1',
        params: [emailId],
        key: ['attempted_at', 'id'],
        page,
      });
      const data = rows.map((r) => ({
        id: Number(r.id),
        recipient: r.recipient,
        mx_host: r.mx,
        code: Number(/^([2-5]\d\d)\b/.exec(r.response)?.[1]) || null,
        response: r.response,
        outcome: r.outcome,
        tls: r.tls_requirement ? { protocol: r.tls_protocol, requirement: r.tls_requirement } : null,
        attempted_at: r.attempted_at.toISOString(),
      }));
      return { body: envelope(data, hasMore) };
    },
  };
}
