// How concepts record: one small function per fact, called where the fact becomes true (after
// the commit that makes it so). Each is a no-op unless a Postline in this thread serves
// metrics (POSTLINE_METRICS), and otherwise costs a counter increment: label children are
// made once, here, and the hot paths (accept, SMTP replies, delivery outcomes) find theirs in
// a small object by a fixed key, never building a labels object per call (bench/metrics-cost.ts
// prices each call: tens to hundreds of nanoseconds).
import {
  acmeFailures,
  certificateExpiry,
  acceptToDelivered,
  DELIVERY_OUTCOMES,
  deliveryOutcomes,
  dmarcFailingMessages,
  dmarcReports,
  emailsAccepted,
  INGRESSES,
  REPORT_OUTCOMES,
  SMTP_REPLY_CLASSES,
  shapingRate,
  shapingSignals,
  shapingThrottled,
  smtpReplies,
  smtpSessions,
  smtpSessionsOpen,
  type THREADS,
  tlsReportsReceived,
  WEBHOOK_OUTCOMES,
  webhookDeliveries,
  webhookLag,
} from './definitions.js';

type Ingress = (typeof INGRESSES)[number];
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];
export type Thread = (typeof THREADS)[number];
export type ReportOutcome = (typeof REPORT_OUTCOMES)[number];

/** Postlines of this thread that record metrics (a test process may start several). */
let recording = 0;

/** Starts recording in this thread; the returned function stops it (when no other Postline here records). */
export function recordMetrics(): () => void {
  recording++;
  let stopped = false;
  return () => {
    if (!stopped) recording--;
    stopped = true;
  };
}

/** Whether this thread records: lets a caller skip preparing what it would record. */
export const isRecording = (): boolean => recording > 0;

/** Every label value of a fixed list, with its child: series start at 0 instead of appearing on first use. */
function children<V extends string, C>(values: readonly V[], child: (value: V) => C): Record<V, C> {
  return Object.fromEntries(values.map((v) => [v, child(v)])) as Record<V, C>;
}

const accepted = children(INGRESSES, (ingress) => {
  emailsAccepted.inc({ ingress }, 0);
  return emailsAccepted.labels(ingress);
});

/** `count` emails came in by `ingress` and are committed. */
export function emailsAcceptedBy(ingress: Ingress, count: number): void {
  if (recording > 0 && count > 0) accepted[ingress].inc(count);
}

/** Per provider (a short fixed table, plus `other`): the child of each outcome. */
const outcomesByProvider = new Map<string, Record<DeliveryOutcome, { inc(n?: number): void }>>();

function outcomeChildren(provider: string): Record<DeliveryOutcome, { inc(n?: number): void }> {
  let byOutcome = outcomesByProvider.get(provider);
  if (!byOutcome) {
    byOutcome = children(DELIVERY_OUTCOMES, (outcome) => {
      deliveryOutcomes.inc({ outcome, provider }, 0);
      return deliveryOutcomes.labels(outcome, provider);
    });
    outcomesByProvider.set(provider, byOutcome);
  }
  return byOutcome;
}

/**
 * One recipient's attempt concluded `outcome` (recorded in the database); `provider` is the
 * name from the provider table, null for a domain of none. For a delivery, `acceptedAt` is
 * when the email entered the queue.
 */
export function deliveryOutcome(outcome: DeliveryOutcome, provider: string | null, acceptedAt?: Date): void {
  if (recording === 0) return;
  outcomeChildren(provider ?? 'other')[outcome].inc();
  if (outcome === 'delivered' && acceptedAt) acceptToDelivered.observe(Math.max(0, Date.now() - acceptedAt.getTime()) / 1000);
}

/** A destination asked the delivery worker to slow down; `provider` null for a domain of no known provider. */
export function shapingSignal(provider: string | null): void {
  if (recording > 0) shapingSignals.inc({ provider: provider ?? 'other' });
}

/** A provider's shaping now: its rate a minute (null: not limited) and whether replies slowed it below its limit. */
export function shapingStateOf(provider: string, ratePerMinute: number | null, throttled: boolean): void {
  if (recording === 0) return;
  if (ratePerMinute === null) shapingRate.remove({ provider });
  else shapingRate.set({ provider }, ratePerMinute);
  shapingThrottled.set({ provider }, throttled ? 1 : 0);
}

const replies = children(SMTP_REPLY_CLASSES, (c) => {
  smtpReplies.inc({ class: c }, 0);
  return smtpReplies.labels(c);
});
const REPLY_CLASS_BY_DIGIT: (keyof typeof replies | undefined)[] = [undefined, undefined, '2xx', '3xx', '4xx', '5xx'];

/** The SMTP server opened a session. Returns what to call when it closes. */
export function smtpSessionOpened(): () => void {
  if (recording === 0) return () => {};
  smtpSessions.inc();
  smtpSessionsOpen.inc();
  let closed = false;
  return () => {
    if (!closed) smtpSessionsOpen.dec();
    closed = true;
  };
}

/** The SMTP server sent a reply with this code. */
export function smtpReplied(code: number): void {
  if (recording === 0) return;
  const replyClass = REPLY_CLASS_BY_DIGIT[Math.floor(code / 100)];
  if (replyClass) replies[replyClass].inc();
}

const webhookOutcomes = children(WEBHOOK_OUTCOMES, (outcome) => {
  webhookDeliveries.inc({ outcome }, 0);
  return webhookDeliveries.labels(outcome);
});

/** A webhook attempt's result is recorded; `eventCreatedAt`: when its event was. */
export function webhookAttempted(ok: boolean, eventCreatedAt: Date): void {
  if (recording === 0) return;
  webhookOutcomes[ok ? 'success' : 'failure'].inc();
  if (ok) webhookLag.observe(Math.max(0, Date.now() - eventCreatedAt.getTime()) / 1000);
}

/** An ACME order of the SMTP certificate failed (certificates/own-certificate.ts). */
export function acmeFailed(): void {
  if (recording > 0) acmeFailures.inc();
}

/** The SMTP listeners now present a certificate that ends at `notAfter`. */
export function certificateExpiresAt(notAfter: Date): void {
  if (recording > 0) certificateExpiry.set(notAfter.getTime() / 1000);
}

/** One report received: what came of it, and the name of the account's domain it was stored under ('' when it was not). */
export interface ReportTally {
  kind: 'dmarc' | 'tls';
  outcome: ReportOutcome;
  domain: string;
}

// The report counters start at 0 for reports stored under no domain; a domain's series appear
// with its first report. Labels are built per call: reports come a few a day per domain.
for (const outcome of REPORT_OUTCOMES) {
  dmarcReports.inc({ outcome, domain: '' }, 0);
  tlsReportsReceived.inc({ outcome, domain: '' }, 0);
}

/** Reports received in one message are committed (dmarc-reports/store-reports.ts): each report's outcome, and the failing messages the stored DMARC reports count, by domain. */
export function reportsReceived(tallies: readonly ReportTally[], failing: readonly { domain: string; messages: number }[]): void {
  if (recording === 0) return;
  for (const { kind, outcome, domain } of tallies) (kind === 'dmarc' ? dmarcReports : tlsReportsReceived).inc({ outcome, domain });
  for (const { domain, messages } of failing) if (messages > 0) dmarcFailingMessages.inc({ domain }, messages);
}
