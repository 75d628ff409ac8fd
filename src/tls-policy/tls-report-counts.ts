// What TLS reports (RFC 8460) are made of: sessions to recipients that publish a policy
// (MTA-STS or DANE), counted per policy domain and UTC day, successes and each kind of failure
// with the MX host and addresses it happened with (§4.3). Counted in memory as delivery goes and
// added to tls_report_counts every few seconds and at shutdown, one statement for all, so
// counting costs delivery nothing measurable; a node that dies loses at most its last seconds'
// counts. src/tls-reports/ turns finished days into reports.
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { PolicyInForce, TlsFailure } from './requirement.js';

const FLUSH_MS = 5_000;

interface Where {
  mx: string;
  receivingIp: string;
  sendingIp: string;
}

export class TlsReportCounter {
  private counts = new Map<string, { row: unknown[]; sessions: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private db: Db,
    private logger: Logger,
  ) {}

  /** A session (or an attempt refused before one) under a recipient's policy: a success, or why it failed. */
  session(policy: PolicyInForce, result: 'success' | TlsFailure, where: Where): void {
    const day = new Date().toISOString().slice(0, 10);
    // A success counts toward the summary only: where it happened is not reported (§4.4).
    const { mx, receivingIp, sendingIp } = result === 'success' ? { mx: '', receivingIp: '', sendingIp: '' } : where;
    const row = [day, policy.domain, policy.type, policy.strings.join('\n'), result, mx, receivingIp, sendingIp];
    const key = JSON.stringify(row);
    const count = this.counts.get(key);
    if (count) count.sessions++;
    else this.counts.set(key, { row, sessions: 1 });
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Adds what was counted since the last flush; kept for the next one if the database fails. */
  async flush(): Promise<void> {
    if (this.counts.size === 0) return;
    const batch = [...this.counts.values()];
    this.counts.clear();
    const column = (i: number) => batch.map((c) => c.row[i]);
    try {
      await this.db.query(
        `INSERT INTO tls_report_counts AS c (day, policy_domain, policy_type, policy_text, result, receiving_mx, receiving_ip, sending_ip, sessions)
         SELECT * FROM unnest($1::date[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[])
         ON CONFLICT (day, policy_domain, policy_type, policy_text, result, receiving_mx, receiving_ip, sending_ip)
         DO UPDATE SET sessions = c.sessions + EXCLUDED.sessions`,
        [...[0, 1, 2, 3, 4, 5, 6, 7].map(column), batch.map((c) => c.sessions)],
      );
    } catch (err) {
      this.logger.warn({ err }, 'TLS report counts could not be written; kept for the next try');
      for (const { row, sessions } of batch) {
        const key = JSON.stringify(row);
        const count = this.counts.get(key);
        if (count) count.sessions += sessions;
        else this.counts.set(key, { row, sessions });
      }
    }
  }
}

/** Counts are kept 30 days: long past their report (housekeeping). */
export async function purgeOldTlsReportCounts(db: Db): Promise<void> {
  await db.query(`DELETE FROM tls_report_counts WHERE day < (now() AT TIME ZONE 'UTC')::date - 30`);
}
