// GET /domains/:id/dmarc-reports/:reportId: one DMARC aggregate report with its rows, in the
// order the report gave them: each source address, its message count, what the receiver did
// with them and the DKIM and SPF results behind the DMARC verdict.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountDomainOr404, REPORT_DOMAIN_PARAMS } from './account-domain.js';
import { DMARC_REPORT_COLUMNS, DMARC_REPORT_DETAIL_SCHEMA, type DmarcReportRow, type DmarcRowRow, dmarcReportView, dmarcRowView } from './report-views.js';

export function getDmarcReport(db: Db): Route {
  return {
    method: 'GET',
    url: '/domains/:id/dmarc-reports/:reportId',
    doc: {
      summary: 'One DMARC aggregate report of a domain, with its rows',
      tags: ['domains'],
      addition: true,
      params: { ...REPORT_DOMAIN_PARAMS, reportId: uuid("The report's id (as listed), not the reporter's report_id.") },
      response: { status: 200, schema: DMARC_REPORT_DETAIL_SCHEMA },
    },
    async handler({ principal, params }) {
      const domain = await accountDomainOr404(db, principal.accountId, params.id);
      const report = await db.one<DmarcReportRow>(`SELECT ${DMARC_REPORT_COLUMNS} FROM dmarc_reports WHERE id = $1 AND domain_id = $2 AND account_id = $3`, [
        params.reportId,
        domain.id,
        principal.accountId,
      ]);
      if (!report) throw notFound('DMARC report');
      const rows = await db.query<DmarcRowRow>(
        `SELECT source_ip, count, disposition, dkim_aligned, spf_aligned, header_from, envelope_from, envelope_to, auth_results
           FROM dmarc_report_rows WHERE report_id = $1 ORDER BY position`,
        [report.id],
      );
      return { body: { object: 'dmarc_report', ...dmarcReportView(report), rows: rows.map(dmarcRowView) } };
    },
  };
}
