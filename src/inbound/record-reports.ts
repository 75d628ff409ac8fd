// What a report that came back to an email's return path does to that email, in the receiving
// transaction (recognise-return-path-mail.ts finds them: DSNs and ARF reports, known bounce
// formats, prose), and what each came to (a Finding, stored with the message):
// - a failed DSN marks the recipient's delivery `bounced` with the Diagnostic-Code as its
//   last_response, records `email.bounced` with the same bounce object delivery reports
//   (src/delivery/bounce-codes.ts) and, for a permanent bounce about the address, suppresses it
//   like a synchronous hard bounce (src/suppressions/suppress-on-outcome.ts);
// - a delayed DSN records `email.delivery_delayed` (the remote MTA accepted it and is retrying);
// - a complaint records `email.complained` and suppresses the address (origin complaint).
// The recipient is the one the report names; a report naming none (feedback loops often
// redact it), or naming only guesses from prose none of which is a recipient, applies to an
// email with a single recipient only. Repeats change nothing: a bounced delivery stays
// bounced, a complaint is recorded once per recipient.
// Locks: the email row, then its deliveries, the order delivery outcomes take them in.
import type { Queryable } from '../db/database.js';
import { bounceOf, parseReply } from '../delivery/bounce-codes.js';
import { outboundEvent, recordEvents } from '../events/record-events.js';
import type { OutboundEvent } from '../events/payloads.js';
import { suppressAfterOutcomes, type OutcomeForSuppression } from '../suppressions/suppress-on-outcome.js';
import type { Report } from './reports.js';
import { bounceReported } from '../queue/transitions.js';
import type { DeliveryStatus } from '../queue/delivery-status.js';

interface Change {
  event: OutboundEvent;
  recipient: string;
}

/**
 * The bounce object of a failed DSN, classed like a reply at delivery (bounce-classes.ts) from
 * the Diagnostic-Code's reply with the Status as its enhanced code (the reply's own where the
 * Status is generic, x.0.0); a 4.x.x Status (the remote
 * server gave up retrying) is Transient whatever the text says.
 */
function bounceOfReport(report: { status: string; diagnostic: string | null }) {
  // "smtp; 550 5.1.1 …" → the SMTP reply; other diagnostic types keep their text as the message.
  const text = report.diagnostic?.replace(/^[\w-]+\s*;\s*/, '') ?? '';
  const reply = parseReply(text || report.status);
  // A generic Status (5.0.0) says less than the Diagnostic-Code's own enhanced code, when it has one.
  const enhanced = /^\d\.0\.0$/.test(report.status) && reply.enhanced ? reply.enhanced : report.status;
  const bounce = bounceOf({ ...reply, code: reply.code || (report.status.startsWith('5') ? 550 : 450), enhanced });
  return {
    ...bounce,
    ...(report.status.startsWith('4') && bounce.type === 'Permanent' ? { type: 'Transient' as const, subType: 'General' as const } : {}),
    message: reply.text || reply.raw || `Status ${report.status}`,
    diagnosticCode: report.diagnostic ? [report.diagnostic] : [],
  };
}

interface ReportedEmailRow {
  id: string;
  account_id: string;
  created_at: Date;
  from_address: string;
  subject: string;
  message_id: string;
  tags: { name: string; value: string }[] | null;
  broadcast_id: string | null;
  template_id: string | null;
}

interface ReportedDeliveryRow {
  id: number;
  recipient: string;
  status: DeliveryStatus;
}

const byName = (deliveries: ReportedDeliveryRow[], report: Report): ReportedDeliveryRow | undefined =>
  report.recipients.map((name) => deliveries.find((d) => d.recipient.toLowerCase() === name.toLowerCase())).find(Boolean);

function matchDelivery(deliveries: ReportedDeliveryRow[], report: Report): ReportedDeliveryRow | undefined {
  return byName(deliveries, report) ?? ((report.recipients.length === 0 || report.guessed) && deliveries.length === 1 ? deliveries[0] : undefined);
}

/** Prose names other addresses too (the sender, a help desk): once a guess names a recipient, the guesses naming none are dropped. */
function withoutStrayGuesses(deliveries: ReportedDeliveryRow[], reports: Report[]): Report[] {
  if (!reports.some((r) => r.guessed && byName(deliveries, r))) return reports;
  return reports.filter((r) => !r.guessed || byName(deliveries, r));
}

/** What one report came to: the recipient it was matched to, and the event it recorded (null: none, a repeat or no match). */
export interface Finding {
  kind: Report['kind'];
  recipient: string | null;
  status: string | null;
  diagnostic: string | null;
  bounce: { type: string; subType: string } | null;
  event: OutboundEvent['type'] | null;
}

function findingOf(report: Report, recipient: string | null): Finding {
  const failed = report.kind === 'failed' ? bounceOfReport(report) : null;
  return {
    kind: report.kind,
    recipient,
    status: report.kind === 'complaint' ? null : report.status,
    diagnostic: report.kind === 'complaint' ? null : report.diagnostic,
    bounce: failed && { type: failed.type, subType: failed.subType },
    event: null,
  };
}

/** Applies `reports` to the email; returns what each came to (none with an event: nothing matched or all repeats). */
export async function recordReports(q: Queryable, emailId: string, reports: Report[]): Promise<Finding[]> {
  if (reports.length === 0) return [];
  const email = await q.one<ReportedEmailRow>(
    `SELECT id, account_id, created_at, from_address, subject, message_id, tags, broadcast_id, template_id
       FROM emails WHERE id = $1 FOR NO KEY UPDATE`,
    [emailId],
  );
  if (!email) return [];
  const deliveries = await q.query<ReportedDeliveryRow>(`SELECT id, recipient, status FROM deliveries WHERE email_id = $1 ORDER BY id FOR UPDATE`, [emailId]);
  const complained = new Set(
    (
      await q.query<{ recipient: string }>(
        `SELECT jsonb_array_elements_text(data->'to') AS recipient FROM events WHERE email_id = $1 AND type = 'email.complained'`,
        [emailId],
      )
    ).map((r) => r.recipient.toLowerCase()),
  );

  const changes: Change[] = [];
  const bounced: { id: number; response: string }[] = [];
  const suppress: OutcomeForSuppression[] = [];
  const target = { id: email.id, accountId: email.account_id };
  const findings: Finding[] = [];
  for (const report of withoutStrayGuesses(deliveries, reports)) {
    const delivery = matchDelivery(deliveries, report);
    const finding = findingOf(report, delivery?.recipient ?? null);
    findings.push(finding);
    if (!delivery) continue;
    const recipient = delivery.recipient;
    const before = changes.length;
    if (report.kind === 'failed' && (delivery.status === 'delivered' || delivery.status === 'queued')) {
      const bounce = bounceOfReport(report);
      delivery.status = 'bounced';
      bounced.push({ id: delivery.id, response: report.diagnostic ?? `Status ${report.status}` });
      changes.push({ event: { type: 'email.bounced', extra: { bounce } }, recipient });
      if (bounce.type === 'Permanent') suppress.push({ delivery: { recipient, email: target }, verdict: { kind: 'bounced', bounce } });
    } else if (report.kind === 'delayed' && delivery.status === 'delivered') {
      changes.push({ event: { type: 'email.delivery_delayed', extra: {} }, recipient });
    } else if (report.kind === 'complaint' && delivery.status === 'delivered' && !complained.has(recipient.toLowerCase())) {
      complained.add(recipient.toLowerCase());
      changes.push({ event: { type: 'email.complained', extra: {} }, recipient });
      suppress.push({ delivery: { recipient, email: target }, verdict: { kind: 'complained' } });
    }
    if (changes.length > before) finding.event = changes[changes.length - 1]!.event.type;
  }
  if (changes.length === 0) return findings;

  if (bounced.length > 0) {
    await bounceReported(q, bounced);
  }
  const sent = {
    id: target.id,
    created_at: email.created_at,
    from_address: email.from_address,
    subject: email.subject,
    message_id: email.message_id,
    tags: email.tags,
    broadcast_id: email.broadcast_id,
    template_id: email.template_id,
  };
  await recordEvents(
    q,
    changes.map((c) => outboundEvent(target.accountId, sent, [c.recipient], c.event)),
  );
  await suppressAfterOutcomes(q, suppress);
  return findings;
}
