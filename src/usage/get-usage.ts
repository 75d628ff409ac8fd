// GET /usage (the SDK's usage.get): the account's usage as Resend's "Retrieve Usage" answers it.
// Emails sent and received come from the rollup the event writer keeps (events/email-metrics.ts),
// over the UTC day and the UTC calendar month; the other figures count the account's rows.
// A self-hosted installation has no plan: its only limit is the per-account rate limit
// (POSTLINE_RATE_LIMIT, per second), answered as `rate_limit`; every quota is `null` (no limit).
import { isoTimestamp } from '../api/format.js';
import type { Route } from '../api/route.js';
import { constant, integer, isoTime, nullable, object, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { readEmailMetrics } from '../events/email-metrics.js';

const used = (extra: Record<string, ReturnType<typeof string>> = {}) => object({ used: integer(), limit: nullable(integer()), ...extra });
const emailQuota = object({ used: integer(), limit: nullable(integer()), sent: integer(), received: integer(), resets_at: isoTime() });

const USAGE_SCHEMA = object({
  object: constant('usage'),
  generated_at: isoTime(),
  emails: object({ daily: emailQuota, monthly: emailQuota }),
  contacts: used(),
  segments: used(),
  broadcasts: used(),
  ai_credits: used({ next_increase_at: nullable(isoTime()) }),
  automation_runs: used({ resets_at: isoTime() }),
  domains: used(),
  rate_limit: object({
    limit: integer({ description: 'Requests per `duration`, per account (POSTLINE_RATE_LIMIT).' }),
    duration: string({ examples: ['1s'] }),
  }),
});

/** Sent, received and their sum over [start, now). */
async function emailUsage(db: Db, accountId: string, start: Date, resetsAt: Date) {
  const { totals } = await readEmailMetrics(db, { accountId, start, end: new Date(), metrics: ['sent', 'received'] });
  return { used: totals.sent + totals.received, limit: null, sent: totals.sent, received: totals.received, resets_at: isoTimestamp(resetsAt) };
}

export function getUsage(db: Db, rateLimitPerSecond: number): Route {
  return {
    method: 'GET',
    url: '/usage',
    doc: {
      summary: 'Retrieve usage',
      description:
        "The account's usage: emails sent and received this UTC day and calendar month (counted from recorded events, precise to the hour), contacts, segments, broadcasts, domains, automation runs started this month, and the rate limit. " +
        'Postline imposes no plan quotas: every `limit` but the rate limit is null.',
      response: { status: 200, schema: USAGE_SCHEMA },
    },
    async handler({ principal }) {
      const { accountId } = principal;
      const now = new Date();
      const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
      const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const nextDay = new Date(day.getTime() + 24 * 3_600_000);
      const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
      const [daily, monthly, counts] = await Promise.all([
        emailUsage(db, accountId, day, nextDay),
        emailUsage(db, accountId, month, nextMonth),
        db.one<Record<'contacts' | 'segments' | 'broadcasts' | 'domains' | 'runs', number>>(
          `SELECT (SELECT count(*)::int FROM contacts WHERE account_id = $1) AS contacts,
                  (SELECT count(*)::int FROM segments WHERE account_id = $1) AS segments,
                  (SELECT count(*)::int FROM broadcasts WHERE account_id = $1) AS broadcasts,
                  (SELECT count(*)::int FROM domains WHERE account_id = $1) AS domains,
                  (SELECT count(*)::int FROM automation_runs WHERE account_id = $1 AND created_at >= $2) AS runs`,
          [accountId, month],
        ),
      ]);
      return {
        body: {
          object: 'usage',
          generated_at: isoTimestamp(now),
          emails: { daily, monthly },
          contacts: { used: counts!.contacts, limit: null },
          segments: { used: counts!.segments, limit: null },
          broadcasts: { used: counts!.broadcasts, limit: null },
          ai_credits: { used: 0, limit: null, next_increase_at: null },
          automation_runs: { used: counts!.runs, limit: null, resets_at: isoTimestamp(nextMonth) },
          domains: { used: counts!.domains, limit: null },
          rate_limit: { limit: rateLimitPerSecond, duration: '1s' },
        },
      };
    },
  };
}
