// The routes of received DMARC and TLS reports, for route-list.ts to mount (Postline's additions).
import type { Route } from '../api/route.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { DnsResolver } from '../dns/resolver.js';
import { dmarcSources } from './dmarc-sources.js';
import { getDmarcReport } from './get-dmarc-report.js';
import { listDmarcReports } from './list-dmarc-reports.js';
import { listTlsReports } from './list-tls-reports.js';

export function reportRoutes(db: Db, dns: DnsResolver, config: Pick<Config, 'outboundIps' | 'smtpHostname'>): Route[] {
  return [
    listDmarcReports(db),
    getDmarcReport(db),
    listTlsReports(db),
    dmarcSources({ db, dns, outboundIps: config.outboundIps, smtpHostname: config.smtpHostname }),
  ];
}
