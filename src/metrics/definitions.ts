// Every metric Postline exports, each with its help text, in one list: docs/reference/metrics.md
// is generated from these definitions (`npm run docs`; test/metrics/reference.unit.test.ts
// fails when they drift). Names start with `postline_`; label values come from short fixed
// lists (never a domain, an address or an account), so every series stays bounded.
//
// Each thread loads this module on its own and so has its own registry: the worker thread's
// figures reach /metrics through thread-metrics.ts, merged with the main thread's by
// prom-client's aggregator (counters and histograms summed; the gauges that both threads
// have carry a `thread` label, so nothing is summed that should not be).
//
// Concepts record through record.ts; the gauges read on scrape are filled by collectors.ts.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
const registers = [registry];

/** The ways an email enters the accept pipeline (emails/persist-and-enqueue.ts EmailSource). */
export const INGRESSES = ['api', 'smtp', 'broadcast', 'automation', 'report'] as const;
/** What a delivery attempt concluded for one recipient. */
export const DELIVERY_OUTCOMES = ['delivered', 'deferred', 'bounced', 'failed', 'suppressed'] as const;
export const SMTP_REPLY_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export const WEBHOOK_OUTCOMES = ['success', 'failure'] as const;
/** `main`: the process's own event loop (API, SMTP, queueing); `worker`: the worker thread's (worker-thread.ts). */
export const THREADS = ['main', 'worker'] as const;
/** What became of a DMARC or TLS report received (dmarc-reports/store-reports.ts). */
export const REPORT_OUTCOMES = ['stored', 'duplicate', 'unrecognised', 'refused'] as const;

export const emailsAccepted = new Counter({
  name: 'postline_emails_accepted_total',
  help: "Emails accepted (committed with their queue rows and email.sent), by how they came in: `api` (POST /emails and /emails/batch), `smtp` (submission), `broadcast` (fan-out), `automation` (send_email steps), `report` (Postline's own TLS reports). Emails whose recipients are all suppressed count too.",
  labelNames: ['ingress'] as const,
  registers,
});

export const acmeFailures = new Counter({
  name: 'postline_acme_failures_total',
  help: "Orders of the SMTP listeners' certificate from the ACME CA (POSTLINE_ACME_EMAIL) that failed on this node; the certificate in use stays, and the order is tried again after a back-off (1 minute, growing to 6 hours).",
  registers,
});

export const certificateExpiry = new Gauge({
  name: 'postline_tls_certificate_expiry_timestamp_seconds',
  help: "When the certificate this node's SMTP listeners present from the ACME CA ends (Unix seconds); absent without POSTLINE_ACME_EMAIL. Renewed when a third of its life is left.",
  registers,
});

export const deliveryOutcomes = new Counter({
  name: 'postline_delivery_outcomes_total',
  help: "Delivery attempts' outcomes, one per recipient, counted once recorded: `delivered`, `deferred` (a temporary failure: retried, until POSTLINE_MAX_QUEUE_AGE fails it), `bounced` (refused for good), `failed` (could never be sent, e.g. the message could not be composed), `suppressed` (a resend.dev test address); by `provider`, the mailbox provider the recipient's domain rolls up to by its MX hosts (POSTLINE_PROVIDERS_FILE and the built-in table), or `other`.",
  labelNames: ['outcome', 'provider'] as const,
  registers,
});

export const shapingRate = new Gauge({
  name: 'postline_delivery_shaping_rate_per_minute',
  help: "Traffic shaping: messages a minute this node's delivery worker may send to a `provider` now (its configured limit, or less after the provider asked it to slow down); absent while the provider is not limited. Only providers of the table (POSTLINE_PROVIDERS_FILE and the built-in one).",
  labelNames: ['provider'] as const,
  registers,
});

export const shapingThrottled = new Gauge({
  name: 'postline_delivery_shaping_throttled',
  help: 'Traffic shaping: 1 while a `provider`\'s rate is below its limit because it answered 421 or "rate limited" (growing back in steps every 10 s without one), else 0.',
  labelNames: ['provider'] as const,
  registers,
});

export const shapingSignals = new Counter({
  name: 'postline_delivery_shaping_signals_total',
  help: 'Traffic shaping: replies that asked this node to slow down (421, or a 4xx saying rate limited, too many connections, try later), by `provider` (`other` for a domain of no known provider).',
  labelNames: ['provider'] as const,
  registers,
});

export const acceptToDelivered = new Histogram({
  name: 'postline_accept_to_delivered_seconds',
  help: "Time from an email's acceptance to its delivery to a recipient's mail server (the 2xx to DATA), per recipient; a scheduled email counts from its scheduled time.",
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600],
  registers,
});

export const queueDeliveries = new Gauge({
  name: 'postline_queue_deliveries',
  help: 'Deliveries (one per recipient) not yet final, installation-wide, by `state`: `due` (its time has come), `in_flight` (claimed by a worker), `deferred` (waiting for a retry), `scheduled`, `paused` (its destination is paused). Read from the database when scraped, at most every 5 s, by the node serving this /metrics.',
  labelNames: ['state'] as const,
  registers,
});

export const queueOldestAge = new Gauge({
  name: 'postline_queue_oldest_age_seconds',
  help: 'Age of the oldest delivery in each `state` of postline_queue_deliveries, from when its email was accepted; 0 when the state is empty.',
  labelNames: ['state'] as const,
  aggregator: 'max',
  registers,
});

export const smtpSessions = new Counter({
  name: 'postline_smtp_sessions_total',
  help: 'SMTP connections the `smtp` role took (submission and inbound mail alike), those turned away at once included.',
  registers,
});

export const smtpSessionsOpen = new Gauge({
  name: 'postline_smtp_sessions_open',
  help: 'SMTP connections open now.',
  registers,
});

export const smtpReplies = new Counter({
  name: 'postline_smtp_replies_total',
  help: 'Replies the SMTP server sent, by `class`: `2xx` (done), `3xx` (go on: DATA, AUTH), `4xx` (try again later), `5xx` (refused).',
  labelNames: ['class'] as const,
  registers,
});

export const dmarcReports = new Counter({
  name: 'postline_dmarc_reports_total',
  help: "DMARC aggregate reports received by mail (at a domain's rua address or any address of a receiving domain), by `outcome`: `stored` (attached to the account's domain its policy domain names), `duplicate` (that reporter's report id was stored before), `unrecognised` (for a domain the account does not own, or without a readable period), `refused` (over the hourly limit of its sender); and by `domain`: the name of the account's domain it was stored under (`stored`, `duplicate`), empty for the others (a report about someone else's name must not add series). Its reports: GET /domains/:id/dmarc-reports.",
  labelNames: ['outcome', 'domain'] as const,
  registers,
});

export const tlsReportsReceived = new Counter({
  name: 'postline_tls_reports_received_total',
  help: 'SMTP TLS reports (RFC 8460) received by mail, one per report and policy domain, by `outcome` and `domain` as for postline_dmarc_reports_total. Its reports: GET /domains/:id/tls-reports.',
  labelNames: ['outcome', 'domain'] as const,
  registers,
});

export const dmarcFailingMessages = new Counter({
  name: 'postline_dmarc_failing_messages_total',
  help: 'Messages that stored DMARC reports say failed DMARC (neither DKIM nor SPF aligned and passed), from any source, by the `domain` they were sent in the name of. By source: GET /domains/:id/dmarc-sources.',
  labelNames: ['domain'] as const,
  registers,
});

export const webhookDeliveries = new Counter({
  name: 'postline_webhook_deliveries_total',
  help: 'Webhook delivery attempts (one signed POST to an endpoint) by `outcome`: `success` (a 2xx) or `failure` (any other status, an error or a time-out; retried on POSTLINE_WEBHOOK_RETRY_DELAYS).',
  labelNames: ['outcome'] as const,
  registers,
});

export const webhookLag = new Histogram({
  name: 'postline_webhook_lag_seconds',
  help: "Time from an event's recording to its successful delivery to an endpoint, retries included.",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000],
  registers,
});

export const dbPoolConnections = new Gauge({
  name: 'postline_db_pool_connections',
  help: "Connections of a `thread`'s PostgreSQL pool, by `state`: `busy` (running a query or holding a transaction) or `idle`.",
  labelNames: ['thread', 'state'] as const,
  registers,
});

export const dbPoolWaiting = new Gauge({
  name: 'postline_db_pool_waiting',
  help: 'Queries of a `thread` waiting for a free connection of its pool (the pool is at its size).',
  labelNames: ['thread'] as const,
  registers,
});

export const dbPoolSize = new Gauge({
  name: 'postline_db_pool_max_connections',
  help: "The most connections a `thread`'s pool opens.",
  labelNames: ['thread'] as const,
  registers,
});

export const eventLoopLag = new Gauge({
  name: 'postline_event_loop_lag_seconds',
  help: "How late a `thread`'s event loop ran its timers since the previous scrape (node's monitorEventLoopDelay), by `stat`: `mean`, `p50`, `p99`, `max`.",
  labelNames: ['thread', 'stat'] as const,
  registers,
});

export const blocklistListed = new Gauge({
  name: 'postline_blocklist_listed',
  help: "1 while a DNS blocklist lists a `target`, else 0: an outbound address (`kind` `ip`, on the POSTLINE_DNSBLS `zone`s) or a verified sending domain (`kind` `domain`, on the POSTLINE_DOMAIN_BLOCKLISTS `zone`s), as the last definite answer said (a refusal to answer, e.g. to a public resolver, is no listing; a time-out keeps the last state). Checked once per POSTLINE_DNSBL_INTERVAL for the cluster; read from the database when scraped, at most every 5 s. Labelled by address and domain, as domain-health metrics are (CONTRIBUTING): one series per target and zone, as many as the installation's addresses and sending domains times the zones.",
  labelNames: ['kind', 'target', 'zone'] as const,
  aggregator: 'max',
  registers,
});
