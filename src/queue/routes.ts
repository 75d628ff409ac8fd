// The queue's API (full-access keys, the key's account only): the summary, one destination's
// messages, and the repairs (retry now, fail, pause, resume). Postline's own: Resend has no
// queue to show. `postline queue` (queue/cli.ts) does the same against the database.
import { ApiError, notFound, validation } from '../api/errors.js';
import type { Route, RouteContext, RouteDoc } from '../api/route.js';
import { array, constant, input, integer, type JsonSchema, nullable, object, oneOfValues, SINGLE_LINE_TEXT, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailOr404 } from '../email-row/account-email.js';
import type { ProviderTable } from '../providers/providers.js';
import { destinationMessages } from './destination-messages.js';
import { type Destination, domainsOf, parseDestination } from './destinations.js';
import { pauseDestination, resumeDestination } from './pauses.js';
import { failDeliveries, retryNow, type Selection } from './repair.js';
import { pauseView, queueSummary } from './summary.js';
import { QUEUE_STATES, type QueueState } from './states.js';
import { OUTBOUND_BLOCKLISTS_SCHEMA, outboundBlocklists } from '../blocklists/view.js';

const MAX_REASON = 500;
const SUMMARY_MAX_LIMIT = 1000;
const LISTING_MAX_LIMIT = 100;

/** A `limit` parameter of 1 to `max`, checked by its schema before the handler reads it with limitOf. */
const limitParameter = (max: number, fallback: number) =>
  integer({
    minimum: 1,
    maximum: max,
    default: fallback,
    'x-error': { name: 'validation_error', message: `The \`limit\` parameter must be a number between 1 and ${max}.` },
  });

const limitOf = (raw: string | undefined, fallback: number): number => (raw === undefined ? fallback : Number(raw));

/** The reason of a body that passed REASON_BODY, stored without surrounding spaces. */
const reasonOf = (body: unknown): string => (body as { reason: string }).reason.trim();

// Shared pieces of the routes' descriptions.
const COUNTS = object(Object.fromEntries(QUEUE_STATES.map((s) => [s, integer({ minimum: 0 })])));
const LAST_REPLY = nullable(object({ at: string({ format: 'date-time' }), mx_host: nullable(string()), code: nullable(integer()), reply: string() }));
const PAUSE = object({
  destination: string(),
  kind: oneOfValues(['domain', 'provider']),
  sending_domain: nullable(
    string({ description: 'The sending domain whose mail it holds (a pause Postline made for a blocklisting reply); null: all of the account’s mail.' }),
  ),
  reason: string(),
  since: string({ format: 'date-time' }),
});
const DESTINATION_PARAM = { destination: string({ description: 'A recipient domain (`example.com`) or a provider (`google`, `microsoft`, …).' }) };
const REASON_BODY = input(
  {
    reason: string({
      maxLength: MAX_REASON,
      anyOf: [{ pattern: SINGLE_LINE_TEXT, 'x-message': 'be a non-blank line of text' }],
      description: 'Why: kept with the pause, or given with email.failed.',
    }),
  },
  ['reason'],
);
const counted = (kind: string, field: string): JsonSchema => object({ object: constant(kind), destination: string(), [field]: integer({ minimum: 0 }) });
const doc = (d: Omit<RouteDoc, 'addition' | 'tags'>): RouteDoc => ({ ...d, tags: ['queue'], addition: true });

export function queueRoutes(db: Db, providers: ProviderTable): Route[] {
  const destination = (c: RouteContext): Destination => parseDestination(c.params.destination!, providers);
  const domainsFor = (c: RouteContext) => domainsOf(db, c.principal.accountId, destination(c), providers);
  const selectionOf = async (c: RouteContext): Promise<Selection> => ({ accountId: c.principal.accountId, domains: await domainsFor(c) });
  /** One email of the account (404 otherwise). */
  const emailSelection = async (c: RouteContext): Promise<Selection> => ({
    accountId: c.principal.accountId,
    emailId: await accountEmailOr404(db, c.principal.accountId, c.params.id),
  });

  return [
    {
      method: 'GET',
      url: '/queue',
      doc: doc({
        summary: 'Everything not yet delivered, per destination and state, with providers and pauses',
        query: {
          limit: limitParameter(SUMMARY_MAX_LIMIT, 100),
          provider: string({ description: 'Only the domains of this provider.' }),
        },
        response: {
          status: 200,
          schema: object({
            object: constant('queue_summary'),
            counts: COUNTS,
            total: integer(),
            oldest_age_seconds: nullable(
              integer({
                description:
                  'Age of the oldest delivery waiting to go (due, in flight, deferred or paused), from its acceptance; mail scheduled for later does not count. null: none.',
              }),
            ),
            destinations_total: integer(),
            destinations: array(
              object({
                domain: string(),
                provider: nullable(string()),
                counts: COUNTS,
                total: integer(),
                oldest_created_at: string({ format: 'date-time' }),
                oldest_age_seconds: integer(),
                last_reply: LAST_REPLY,
                paused: nullable(PAUSE),
              }),
            ),
            has_more: { type: 'boolean' },
            providers: array(
              object({ provider: string(), domains: integer(), counts: COUNTS, total: integer(), oldest_age_seconds: integer(), paused: nullable(PAUSE) }),
            ),
            pauses: array(PAUSE),
            shaping: array(
              object({
                destination: string({ description: 'A provider of the table, or an MX host of no known provider.' }),
                rate_per_minute: nullable(integer({ description: 'Messages a minute the nodes may send there now, summed; null: not limited.' })),
                limit_per_minute: nullable(integer({ description: 'The configured limit (POSTLINE_PROVIDERS_FILE); null: none.' })),
                connections: integer(),
                messages_per_connection: integer(),
                sent_last_minute: integer(),
                state: oneOfValues(['throttled', 'limited', 'normal'], {
                  description:
                    "`throttled`: slowed below its limit by the destination's replies (growing back in steps while no more come); `limited`: at its configured rate.",
                }),
                last_signal: nullable(object({ reply: string(), at: string({ format: 'date-time' }) })),
                nodes: integer(),
              }),
            ),
            outbound_ips: array(
              object({
                ip: string(),
                status: oneOfValues(['warming_up', 'ended']),
                started_at: string({ format: 'date-time' }),
                day: integer({ description: 'Day of its warm-up now, 1 during the first 24 hours after a node first sent from it.' }),
                days: integer(),
                per_provider_daily: nullable(integer({ description: "Today's cap per mailbox provider; null once ended." })),
                next_day_at: nullable(string({ format: 'date-time' })),
                today: array(object({ provider: string(), sent: integer(), remaining: integer() })),
              }),
              {
                description:
                  'The warm-up of each outbound IP (POSTLINE_OUTBOUND_IPS listing several): daily caps per mailbox provider on the default schedule. Empty with fewer than two addresses.',
              },
            ),
            blocklists: OUTBOUND_BLOCKLISTS_SCHEMA,
          }),
        },
      }),
      handler: async (c) => ({
        body: {
          ...(await queueSummary(db, c.principal.accountId, providers, {
            limit: limitOf(c.query.limit, 100),
            provider: c.query.provider === undefined ? undefined : c.query.provider.trim().toLowerCase(),
          })),
          blocklists: await outboundBlocklists(db),
        },
      }),
    },
    {
      method: 'GET',
      url: '/queue/destinations/:destination',
      doc: doc({
        summary: "One destination's waiting messages, oldest first, each with its last attempt and next try",
        params: DESTINATION_PARAM,
        query: {
          limit: limitParameter(LISTING_MAX_LIMIT, 20),
          after: string({ description: 'The id of the last message of the previous page.' }),
          state: oneOfValues(QUEUE_STATES),
        },
        response: {
          status: 200,
          schema: object({
            object: constant('list'),
            has_more: { type: 'boolean' },
            data: array(
              object({
                object: constant('queued_message'),
                id: string(),
                email_id: uuid(),
                subject: string(),
                recipient: string(),
                domain: string(),
                state: oneOfValues(QUEUE_STATES),
                attempts: integer(),
                created_at: string({ format: 'date-time' }),
                next_attempt_at: nullable(string({ format: 'date-time' })),
                last_attempt: LAST_REPLY,
                waiting_reason: nullable(
                  string({
                    description:
                      "Why a delivery not tried yet waits (a destination's sending rate, a warm-up's daily cap); null once tried (last_attempt has the reply) or when due.",
                  }),
                ),
                paused_reason: nullable(string()),
              }),
            ),
            mta_sts: array(
              object({
                domain: string(),
                policy: nullable(
                  object({
                    id: string(),
                    mode: oneOfValues(['enforce', 'testing', 'none']),
                    mx: array(string()),
                    max_age: integer({ description: 'Seconds the policy may be cached (RFC 8461).' }),
                    fetched_at: string({ format: 'date-time' }),
                    expires_at: string({ format: 'date-time' }),
                  }),
                ),
                checked_at: nullable(string({ format: 'date-time', description: 'The last lookup of its `_mta-sts` TXT record.' })),
                next_check_at: string({ format: 'date-time' }),
                last_error: nullable(string({ description: 'Why the last lookup or fetch failed (the cached policy stays in force until it expires).' })),
              }),
              {
                description:
                  "The recipient domains' MTA-STS policies (RFC 8461) as the nodes last found them; `policy` null: none published, or none could be fetched. A domain appears once mail to it has been attempted.",
              },
            ),
          }),
        },
      }),
      handler: async (c) => {
        const { after, state } = c.query;
        if (after !== undefined && !/^\d{1,18}$/.test(after))
          throw new ApiError('invalid_parameter', 'The `after` parameter must be the id of a queued message.');
        if (state !== undefined && !QUEUE_STATES.includes(state as QueueState)) {
          throw validation(`The \`state\` parameter must be one of ${QUEUE_STATES.join(', ')}.`);
        }
        const page = await destinationMessages(db, c.principal.accountId, await domainsFor(c), {
          limit: limitOf(c.query.limit, 20),
          after,
          state: state as QueueState | undefined,
        });
        return { body: page };
      },
    },
    {
      method: 'POST',
      url: '/queue/destinations/:destination/retry',
      doc: doc({
        summary: "Try a destination's deferred messages now",
        params: DESTINATION_PARAM,
        response: { status: 200, schema: counted('queue_retry', 'retried') },
      }),
      handler: async (c) => ({ body: { object: 'queue_retry', destination: destination(c).name, retried: await retryNow(db, await selectionOf(c)) } }),
    },
    {
      method: 'POST',
      url: '/queue/destinations/:destination/fail',
      doc: doc({
        summary: "Give up a destination's waiting messages: each fails with email.failed and the reason",
        params: DESTINATION_PARAM,
        body: REASON_BODY,
        response: { status: 200, schema: counted('queue_fail', 'failed') },
      }),
      handler: async (c) => {
        const reason = reasonOf(c.body);
        return { body: { object: 'queue_fail', destination: destination(c).name, failed: await failDeliveries(db, await selectionOf(c), reason) } };
      },
    },
    {
      method: 'POST',
      url: '/queue/destinations/:destination/pause',
      doc: doc({
        summary: 'Pause a destination: its mail waits (visibly, and still subject to the max queue age) until resumed',
        params: DESTINATION_PARAM,
        body: REASON_BODY,
        response: { status: 200, schema: object({ object: constant('queue_pause'), ...PAUSE.properties!, parked: integer({ minimum: 0 }) }) },
      }),
      handler: async (c) => {
        const reason = reasonOf(c.body);
        const { pause, parked } = await pauseDestination(db, c.principal.accountId, destination(c), reason, providers);
        return {
          body: { object: 'queue_pause', ...pauseView(pause), parked },
        };
      },
    },
    {
      method: 'POST',
      url: '/queue/destinations/:destination/resume',
      doc: doc({
        summary: 'Resume a paused destination: its mail is due at once',
        params: DESTINATION_PARAM,
        response: { status: 200, schema: counted('queue_resume', 'resumed') },
      }),
      handler: async (c) => {
        const resumed = await resumeDestination(db, c.principal.accountId, destination(c));
        if (!resumed) throw notFound('Pause');
        return { body: { object: 'queue_resume', destination: resumed.pause.name, resumed: resumed.resumed } };
      },
    },
    {
      method: 'POST',
      url: '/queue/emails/:id/retry',
      doc: doc({
        summary: "Try an email's deferred recipients now",
        params: { id: uuid() },
        response: { status: 200, schema: object({ object: constant('queue_retry'), email_id: uuid(), retried: integer({ minimum: 0 }) }) },
      }),
      handler: async (c) => ({ body: { object: 'queue_retry', email_id: c.params.id, retried: await retryNow(db, await emailSelection(c)) } }),
    },
    {
      method: 'POST',
      url: '/queue/emails/:id/fail',
      doc: doc({
        summary: "Give up an email's waiting recipients: they fail with email.failed and the reason",
        params: { id: uuid() },
        body: REASON_BODY,
        response: { status: 200, schema: object({ object: constant('queue_fail'), email_id: uuid(), failed: integer({ minimum: 0 }) }) },
      }),
      handler: async (c) => {
        const reason = reasonOf(c.body);
        return { body: { object: 'queue_fail', email_id: c.params.id, failed: await failDeliveries(db, await emailSelection(c), reason) } };
      },
    },
  ];
}
