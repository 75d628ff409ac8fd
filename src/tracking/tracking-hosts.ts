// The domains' own tracking hosts (`<tracking_subdomain>.<domain>` whose CNAME verified): tracked
// links of those domains point there (emails/build-message.ts), and a request that arrives with
// one of them as its Host may only be a tracking request (http/tracking-hosts.ts): the API and
// the dashboard are never served under a customer's name. Read every few seconds, so a request
// never waits for the database to know its host.
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';

const REFRESH_MS = 10_000;

export class TrackingHosts {
  private hosts = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** Told when the list changes (a host verified, removed): their certificates follow it. */
  onChange: (() => void) | undefined;

  constructor(
    private db: Db,
    private logger: Logger,
  ) {}

  has(host: string): boolean {
    return this.hosts.has(host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, ''));
  }

  /** Every verified tracking host now. */
  list(): string[] {
    return [...this.hosts];
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async refresh(): Promise<void> {
    try {
      const rows = await this.db.query<{ host: string }>(
        `SELECT lower(tracking_subdomain || '.' || name) AS host FROM domains
          WHERE tracking_subdomain IS NOT NULL AND record_status->>'tracking' = 'verified' AND NOT placeholder`,
      );
      const hosts = new Set(rows.map((r) => r.host));
      const changed = hosts.size !== this.hosts.size || [...hosts].some((h) => !this.hosts.has(h));
      this.hosts = hosts;
      if (changed) this.onChange?.();
    } catch (err) {
      this.logger.warn({ err }, 'reading the tracking hosts failed; the last list stays');
    }
  }
}
