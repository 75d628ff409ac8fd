// GET /domains/:id/dmarc-reports: the DMARC aggregate reports received about one of the
// caller's domains (store-reports.ts), newest received first, paged as Resend's lists: who
// reported, the period, and its totals (messages, and those that passed DMARC).
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { accountDomainOr404, REPORT_DOMAIN_PARAMS } from './account-domain.js';
import { DMARC_REPORT_COLUMNS, DMARC_REPORT_SCHEMA, type DmarcReportRow, dmarcReportView } from './report-views.js';

export function listDmarcReports(db: Db): Route {
  return {
    method: 'GET',
    url: '/domains/:id/dmarc-reports',
    doc: {
      ...listDoc("A domain's DMARC aggregate reports, newest first", DMARC_REPORT_SCHEMA),
      description:
        "The DMARC aggregate reports (RFC 7489) receivers sent about the domain: to the rua address of its recommended DMARC record (dmarc-reports@ its return-path host) or to any address of a receiving domain of the account, attached by the report's policy domain. The same report sent twice is listed once.",
      tags: ['domains'],
      addition: true,
      params: REPORT_DOMAIN_PARAMS,
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const domain = await accountDomainOr404(db, principal.accountId, params.id);
      const { rows, hasMore } = await listPage<DmarcReportRow>(db, {
        table: 'dmarc_reports',
        columns: DMARC_REPORT_COLUMNS,
        where: 'domain_id = $1 AND account_id = $2',
        params: [domain.id, principal.accountId],
        page,
      });
      return { body: envelope(rows.map(dmarcReportView), hasMore) };
    },
  };
}
