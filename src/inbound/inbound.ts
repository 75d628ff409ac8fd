// Inbound mail: what the SMTP server (src/smtp/) hands over from unauthenticated clients.
// acceptsRecipient decides at RCPT TO (no relay: only our receiving domains and our return
// paths); receive takes a whole message, as named steps:
//   route recipients → authenticate (SPF, DKIM, DMARC; mail for receiving domains only)
//   → put trace headers in front (Received, Authentication-Results) → parse (postal-mime)
//   → one transaction: store the message and its `email.received` events; for mail to return
//     paths, apply what it was recognised as (recognise-return-path-mail.ts: a DSN or ARF
//     report, a known bounce format, a prose bounce, an auto-reply…) and store it with that
//     verdict (store-return-path-mail.ts); DMARC and TLS reports, in mail to a domain's report
//     mailboxes or to any address of a receiving domain (stored as received mail too), are kept
//     as reports of the domain they are about (dmarc-reports/store-reports.ts)
// and resolves once that transaction has committed, so the SMTP 250 means durable. A throw
// means nothing was kept (the client gets a 4xx and retries; NoLongerAccepted: a 550).
// Authentication and parsing happen before the transaction: no DNS lookup holds it open.
import crypto from 'node:crypto';
import type { DNSResolver } from 'mailauth';
import type { Email } from 'postal-mime';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logger.js';
import { authenticateMessage, mailauthResolver } from './authenticate.js';
import { readReportMail } from '../dmarc-reports/read-report-mail.js';
import type { ReportMailReading } from '../dmarc-reports/report-types.js';
import { type ReportDelivery, type ReportIntake, recordIntakeMetrics, storeReportMail } from '../dmarc-reports/store-reports.js';
import { UnparseableMessage } from '../message/parse-message.js';
import { describeMessage, parseMime, UNPARSEABLE } from '../message/received-message.js';
import { routeRecipients, type RoutedRecipients } from './recipients.js';
import { type Recognition, recogniseReturnPathMail } from './recognise-return-path-mail.js';
import { recordReports } from './record-reports.js';
import { storeReceived } from './store-received.js';
import { storeReturnPathMessage } from './store-return-path-mail.js';

export interface InboundEnvelope {
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string;
  clientHostname: string;
  heloName: string;
  secure: boolean;
}

interface InboundDeps {
  db: Db;
  dns: DnsResolver;
  config: Config;
  logger: Logger;
}

/** Thrown by receive when no recipient is ours any more (a domain removed between RCPT and DATA): a permanent refusal. */
class NoLongerAccepted extends Error {
  readonly responseCode = 550;
}

/** What an archive attached to mail for an ordinary receiving address may inflate to when looked into for reports (a report mailbox: the reader's bound). */
const INCIDENTAL_REPORT_MAX_BYTES = 10 * 1024 * 1024;

/** Characters safe in a trace header: printable ASCII, no line breaks. */
const traceSafe = (value: string) => value.replace(/[^\x21-\x7e]/g, '').slice(0, 255) || 'unknown';

export class InboundMail {
  private resolver: DNSResolver;

  constructor(private deps: InboundDeps) {
    this.resolver = mailauthResolver(deps.dns);
  }

  /** Whether an unauthenticated client may send to this address (a receiving-enabled domain of ours, or a return path of ours for DSNs). */
  async acceptsRecipient(address: string): Promise<boolean> {
    const routed = await routeRecipients(this.deps.db, [address], this.deps.config.smtpHostname);
    return routed.byAccount.size > 0 || routed.returnPaths.length > 0 || routed.reports.length > 0;
  }

  /** Stores, parses, authenticates and reports the message; resolves only after commit. Throws on failure (reply 4xx). */
  async receive(raw: Buffer, envelope: InboundEnvelope): Promise<void> {
    const { db } = this.deps;
    const routed = await routeRecipients(db, envelope.rcptTo, this.deps.config.smtpHostname);
    if (routed.byAccount.size === 0 && routed.returnPaths.length === 0 && routed.reports.length === 0) {
      throw new NoLongerAccepted('No recipient of this message is accepted here any more');
    }
    const id = crypto.randomUUID();
    const receiving = routed.byAccount.size > 0;
    const auth = receiving ? await authenticateMessage(raw, envelope, this.authDeps()) : undefined;
    // What is stored, and parsed: downloads parse these same bytes again (attachment positions).
    const stored = auth ? Buffer.concat([this.traceHeaders(id, envelope, auth.headerLines), raw]) : raw;
    const email = await this.parse(stored);
    const recognition = routed.returnPaths.length > 0 ? recogniseReturnPathMail(email, envelope.mailFrom, stored) : undefined;
    const reading = routed.reports.length > 0 || receiving ? this.readReports(email, routed.reports.length > 0) : null;
    const reportDeliveries = this.reportDeliveries(routed, reading);

    const outcome = await db.tx(async (q) => {
      const ids = auth
        ? await storeReceived(q, { id, raw: stored, envelope, auth, parsed: email ? describeMessage(email) : UNPARSEABLE }, routed.byAccount, {
            queueAgentDrafts: this.deps.config.agentUrl !== undefined,
          })
        : [];
      let applied = 0;
      // Email rows locked in id order, as delivery outcomes lock them: no deadlock between the two.
      for (const emailId of [...new Set(routed.returnPaths.map((r) => r.emailId))].sort()) {
        if (!recognition) break;
        const findings = await recordReports(q, emailId, recognition.reports);
        applied += findings.filter((f) => f.event !== null).length;
        await storeReturnPathMessage(q, {
          emailId,
          mailFrom: envelope.mailFrom,
          fromHeader: email?.from ? (email.from.address ?? email.from.name) : null,
          subject: email?.subject ?? null,
          recognition,
          findings,
        });
      }
      const reports =
        reportDeliveries.length > 0
          ? await storeReportMail(q, reading, reportDeliveries, { sourceIp: envelope.remoteAddress, mailFrom: envelope.mailFrom })
          : undefined;
      return { stored: ids, applied, reports };
    });
    if (outcome.reports?.error) this.deps.logger.warn({ err: outcome.reports.error, from: envelope.mailFrom }, 'inbound reports could not be stored');
    if (outcome.reports) recordIntakeMetrics(outcome.reports);
    this.log(routed, recognition, outcome, envelope);
  }

  /** The reports the message carries (null: nothing that looks like one). The reader failing keeps the message: nothing is read from it. */
  private readReports(email: Email | undefined, atReportMailbox: boolean): ReportMailReading | null {
    if (!email) return null;
    try {
      // Read synchronously, on the SMTP role's loop: mail to an ordinary address (any zip a
      // customer receives) is looked into with a tighter inflation bound than a report mailbox's.
      return readReportMail(email, atReportMailbox ? {} : { maxInflatedBytes: INCIDENTAL_REPORT_MAX_BYTES });
    } catch (err) {
      this.deps.logger.warn({ err }, 'inbound message: reading it for reports failed');
      return { reports: [], unreadable: [{ filename: null, contentType: 'message', reason: 'the report reader failed on it' }] };
    }
  }

  /** Each account the message came to that keeps its reports: those of the report mailboxes, and receiving accounts when it carries a report. */
  private reportDeliveries(routed: RoutedRecipients, reading: ReportMailReading | null): ReportDelivery[] {
    const deliveries = new Map<string, ReportDelivery>();
    for (const r of routed.reports) {
      if (!deliveries.has(r.accountId)) deliveries.set(r.accountId, { accountId: r.accountId, recipient: r.address, atReportMailbox: true });
    }
    if (reading === null) return [...deliveries.values()];
    for (const [accountId, addresses] of routed.byAccount) {
      if (!deliveries.has(accountId)) deliveries.set(accountId, { accountId, recipient: addresses[0]!, atReportMailbox: false });
    }
    return [...deliveries.values()];
  }

  private authDeps() {
    return { resolver: this.resolver, mtaHost: this.deps.config.smtpHostname, logger: this.deps.logger };
  }

  private async parse(raw: Buffer): Promise<Email | undefined> {
    try {
      return await parseMime(raw);
    } catch (err) {
      // The parser failing (its thread gone) is ours: nothing is stored, the client retries.
      if (!(err instanceof UnparseableMessage)) throw err;
      // The bytes are what the customer needs; keep them even when the structure is beyond repair.
      this.deps.logger.warn({ err }, 'inbound message could not be parsed; stored raw only');
      return undefined;
    }
  }

  /** Received (RFC 5321 §4.4) and the authentication results, to put in front of the message as an MTA does. */
  private traceHeaders(id: string, envelope: InboundEnvelope, authHeaderLines: string): Buffer {
    const host = traceSafe(this.deps.config.smtpHostname);
    const ip = traceSafe(envelope.remoteAddress.replace(/^::ffff:/, ''));
    // The client's reverse-DNS name when there is one (smtp-server writes "[ip]" when there is not).
    const rdns = envelope.clientHostname && !envelope.clientHostname.startsWith('[') ? `${traceSafe(envelope.clientHostname)} ` : '';
    const received =
      `Received: from ${traceSafe(envelope.heloName)} (${rdns}[${ip}])\r\n` +
      `\tby ${host} (Postline) with ${envelope.secure ? 'ESMTPS' : 'ESMTP'} id ${id}\r\n` +
      (envelope.rcptTo.length === 1 ? `\tfor <${traceSafe(envelope.rcptTo[0]!)}>` : '\t') +
      `; ${new Date().toUTCString().replace('GMT', '+0000')}\r\n`;
    return Buffer.from(received + authHeaderLines, 'utf8');
  }

  private log(
    routed: RoutedRecipients,
    recognition: Recognition | undefined,
    outcome: { stored: string[]; applied: number; reports?: ReportIntake },
    envelope: InboundEnvelope,
  ): void {
    const { logger } = this.deps;
    if (outcome.stored.length > 0) logger.info({ received: outcome.stored, from: envelope.mailFrom }, 'inbound message stored');
    if (outcome.reports)
      logger.info({ reports: outcome.reports.tallies, unreadable: outcome.reports.unreadable, from: envelope.mailFrom }, 'inbound reports stored');
    if (!recognition) return;
    const { verdict, format, reason } = recognition;
    logger.info(
      { emails: routed.returnPaths.map((r) => r.emailId), verdict, format, reason, reports: recognition.reports.length, applied: outcome.applied },
      'message to a return path recognised',
    );
  }
}
