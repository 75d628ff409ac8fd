// Daily TLS reports (RFC 8460) of what Postline sent, one per finished UTC day and recipient
// policy domain, for the whole cluster: every node's worker role looks for days with counted
// sessions and no report yet, and the node whose INSERT claims a (day, domain) row makes and
// sends it; the others skip it. Each domain says where it wants reports in its `_smtp._tls` TXT
// record (report.ts): `mailto:` addresses get the report as mail through the accept pipeline
// (from POSTLINE_TLS_REPORTS_FROM, DKIM-signed with its domain's key, delivered like any
// other), `https:` ones by POST (§5.3). What became of each address is kept in tls_reports; a
// refusal is recorded there, never retried (the next day's report follows) and never raised.
import crypto from 'node:crypto';
import https from 'node:https';
import zlib from 'node:zlib';
import type { ApiError } from '../api/errors.js';
import type { Db } from '../db/database.js';
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';
import { accountOfVerifiedDomain } from '../domains/sending-domain.js';
import { pinnedLookup } from '../egress/destination-policy.js';
import { acceptEmails, type AcceptDeps } from '../emails/accept.js';
import { parseEmailRequest } from '../emails/email-request.js';
import type { Logger } from '../logger.js';
import { buildReport, parseTlsRptRecord, type TlsReportCountRow } from './report.js';

/** How often a node looks for days to report. */
const CHECK_MS = 10 * 60_000;
/** A day is reported once it has been over this long, so every node has added its counts (tls-report-counts.ts flushes every 5 s). */
const SETTLE_MS = 5 * 60_000;
const HTTPS_TIMEOUT_MS = 30_000;
const DAYS_PER_CHECK = 100;

interface SenderOptions {
  db: Db;
  resolver: DnsResolver;
  accept: AcceptDeps;
  /** POSTLINE_TLS_REPORTS_FROM; undefined: days are marked skipped, nothing is sent. */
  from: string | undefined;
  /** The MTA's host name: organization-name, submitter. */
  submitter: string;
  logger: Logger;
}

type Destination = { rua: string; ok: boolean; detail: string };

interface DueReportRow {
  day: string;
  policy_domain: string;
}

/** One day's report for one domain: its id, and the unique part of its attachment's name. */
interface ReportName {
  day: string;
  domain: string;
  reportId: string;
  unique: string;
}

export class TlsReportSender {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private options: SenderOptions) {}

  start(): void {
    const check = () => {
      this.running = this.sendDue().catch((err) => this.options.logger.warn({ err }, 'sending TLS reports failed; trying again later'));
    };
    check();
    this.timer = setInterval(check, CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Sends the reports of every finished day not reported yet; the (day, domain) pairs this node sent. */
  async sendDue(now = new Date()): Promise<{ day: string; domain: string; destinations: Destination[]; skipped: string | null }[]> {
    const { db } = this.options;
    const due = await db.query<DueReportRow>(
      `SELECT DISTINCT c.day::text AS day, c.policy_domain FROM tls_report_counts c
        WHERE c.day < ($1::timestamptz AT TIME ZONE 'UTC')::date
          AND NOT EXISTS (SELECT 1 FROM tls_reports r WHERE r.day = c.day AND r.policy_domain = c.policy_domain)
        ORDER BY 1, 2 LIMIT ${DAYS_PER_CHECK}`,
      [new Date(now.getTime() - SETTLE_MS)],
    );
    const sent = [];
    for (const { day, policy_domain: domain } of due) {
      const unique = crypto.randomBytes(4).toString('hex');
      const reportId = `${day}T00:00:00Z_${domain}_${unique}@${this.options.submitter}`;
      const claimed = await db.query('INSERT INTO tls_reports (day, policy_domain, report_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING report_id', [
        day,
        domain,
        reportId,
      ]);
      if (claimed.length === 0) continue; // another node has it
      const { destinations, skipped } = await this.sendOne({ day, domain, reportId, unique });
      await db.query('UPDATE tls_reports SET destinations = $3, skipped = $4, finished_at = now() WHERE day = $1 AND policy_domain = $2', [
        day,
        domain,
        JSON.stringify(destinations),
        skipped,
      ]);
      if (skipped) this.options.logger.info({ day, domain, skipped }, 'TLS report not sent');
      for (const d of destinations.filter((x) => !x.ok)) this.options.logger.warn({ day, domain, rua: d.rua, detail: d.detail }, 'TLS report refused');
      sent.push({ day, domain, destinations, skipped });
    }
    return sent;
  }

  private async sendOne(report: ReportName): Promise<{ destinations: Destination[]; skipped: string | null }> {
    const { db, resolver, from, submitter } = this.options;
    const { day, domain, reportId } = report;
    let record: ReturnType<typeof parseTlsRptRecord>;
    try {
      record = parseTlsRptRecord(await resolver.txt(`_smtp._tls.${domain}`, { fresh: true }));
    } catch (err) {
      if (!(err instanceof DnsTemporaryError)) throw err;
      return { destinations: [], skipped: `_smtp._tls.${domain}: ${err.message}` };
    }
    if (record === null) return { destinations: [], skipped: `${domain} publishes no _smtp._tls record` };
    if ('error' in record) return { destinations: [], skipped: `_smtp._tls.${domain}: ${record.error}` };
    const rows = await db.query<TlsReportCountRow>('SELECT * FROM tls_report_counts WHERE day = $1 AND policy_domain = $2', [day, domain]);
    const json = buildReport(rows, { organization: submitter, contact: from ?? `postmaster@${submitter}`, day, domain, reportId });
    const gzipped = zlib.gzipSync(JSON.stringify(json));
    const destinations: Destination[] = [];
    for (const rua of record.rua) {
      if (/^https:/i.test(rua)) destinations.push({ rua, ...(await this.post(rua, gzipped)) });
      else if (!from) destinations.push({ rua, ok: false, detail: 'POSTLINE_TLS_REPORTS_FROM is not set: no address to mail reports from' });
      else destinations.push({ rua, ...(await this.mail(rua.slice('mailto:'.length), report, gzipped)) });
    }
    return { destinations, skipped: null };
  }

  /** §5.3: the report as mail, its attachment named submitter!domain!begin!end!id.json.gz. */
  private async mail(to: string, report: ReportName, gzipped: Buffer): Promise<{ ok: boolean; detail: string }> {
    const { db, accept, from, submitter } = this.options;
    const accountId = await accountOfVerifiedDomain(db, from!.split('@')[1]!);
    if (!accountId) return { ok: false, detail: `${from!.split('@')[1]} (POSTLINE_TLS_REPORTS_FROM) is not a verified sending domain` };
    const begin = Date.parse(`${report.day}T00:00:00Z`) / 1000;
    const filename = `${submitter}!${report.domain}!${begin}!${begin + 86_399}!${report.unique}.json.gz`;
    try {
      const result = await acceptEmails(accept, {
        principal: { accountId, domainId: null },
        source: 'report',
        payloads: [
          {
            from,
            to: [decodeURIComponent(to)],
            subject: `Report Domain: ${report.domain} Submitter: ${submitter} Report-ID: <${report.reportId}>`,
            text: `This is an aggregate TLS report (RFC 8460) from ${submitter} for ${report.domain}, ${report.day} (UTC).`,
            headers: { 'TLS-Report-Domain': report.domain, 'TLS-Report-Submitter': submitter },
            attachments: [{ filename, content: gzipped.toString('base64'), content_type: 'application/tlsrpt+gzip' }],
          },
        ],
        validate: (p) => parseEmailRequest(p),
        mode: 'strict',
      });
      return { ok: true, detail: `accepted as email ${result.ids[0]}` };
    } catch (err) {
      if ((err as ApiError).statusCode) return { ok: false, detail: `refused: ${(err as Error).message}` };
      throw err;
    }
  }

  /** §5.3: POST the gzipped report; a 2xx is success. Resolved through our resolver, certificate checked. */
  private async post(url: string, body: Buffer): Promise<{ ok: boolean; detail: string }> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, detail: 'not a URL' };
    }
    let addresses: string[];
    try {
      addresses = await this.options.resolver.addresses(parsed.hostname);
    } catch (err) {
      return { ok: false, detail: `${parsed.hostname}: ${(err as Error).message}` };
    }
    if (addresses.length === 0) return { ok: false, detail: `${parsed.hostname} has no address` };
    return new Promise((resolve) => {
      const request = https.request(
        parsed,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/tlsrpt+gzip',
            'content-length': body.length,
            'user-agent': `Postline TLS reports (${this.options.submitter})`,
          },
          lookup: pinnedLookup(addresses),
          agent: false,
          timeout: HTTPS_TIMEOUT_MS,
        },
        (response) => {
          response.resume();
          const status = response.statusCode ?? 0;
          resolve(status >= 200 && status < 300 ? { ok: true, detail: `answered ${status}` } : { ok: false, detail: `answered ${status}` });
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${HTTPS_TIMEOUT_MS / 1000} s`)));
      request.on('error', (err: NodeJS.ErrnoException) => resolve({ ok: false, detail: `${err.message}${err.code ? ` (${err.code})` : ''}` }));
      request.end(body);
    });
  }
}

/** What became of each day's reports is kept 90 days (housekeeping). */
export async function purgeOldTlsReports(db: Db): Promise<void> {
  await db.query(`DELETE FROM tls_reports WHERE day < (now() AT TIME ZONE 'UTC')::date - 90`);
}
