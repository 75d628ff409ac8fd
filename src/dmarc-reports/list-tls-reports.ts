// GET /domains/:id/tls-reports: the SMTP TLS reports (RFC 8460) senders mailed about one of the
// caller's receiving domains (store-reports.ts), newest received first, paged as Resend's
// lists: sessions that succeeded and failed, and each failure by receiving MX and reason.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { accountDomainOr404, REPORT_DOMAIN_PARAMS } from './account-domain.js';
import { TLS_REPORT_COLUMNS, TLS_REPORT_SCHEMA, type TlsReportRow, tlsReportView } from './report-views.js';

export function listTlsReports(db: Db): Route {
  return {
    method: 'GET',
    url: '/domains/:id/tls-reports',
    doc: {
      ...listDoc("A domain's SMTP TLS reports, newest first", TLS_REPORT_SCHEMA),
      description:
        'The SMTP TLS reports (RFC 8460) sending servers mailed about delivering to the domain: to the rua address of its recommended TLS-RPT record (tls-reports@ its return-path host) or to any address of a receiving domain of the account. One per report and policy domain; the same report sent twice is listed once.',
      tags: ['domains'],
      addition: true,
      params: REPORT_DOMAIN_PARAMS,
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const domain = await accountDomainOr404(db, principal.accountId, params.id);
      const { rows, hasMore } = await listPage<TlsReportRow>(db, {
        table: 'received_tls_reports',
        columns: TLS_REPORT_COLUMNS,
        where: 'domain_id = $1 AND account_id = $2',
        params: [domain.id, principal.accountId],
        page,
      });
      return { body: envelope(rows.map(tlsReportView), hasMore) };
    },
  };
}
