// GET /emails: the account's emails, newest first, always paginated (limit default 20), as
// Resend lists them; Postline adds filters (email-filters.ts). A cursor (after/before) is any
// email of the account: one that no longer matches the filters (its last_event moved on) still
// marks where the page starts. `include_total=true` adds how many emails the filters match,
// counted up to TOTAL_CAP: a count that stops there reads at most as many rows as a page that
// finds few matches does, however many the account holds (a full count would read them all).
import { envelope, listDoc, listOf, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { boolean, integer, object, oneOfValues } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { EMAIL_FILTERS_QUERY, parseEmailFilters } from './email-filters.js';
import { EMAIL_SUMMARY_SCHEMA, type EmailSummaryRow, emailSummary, SUMMARY_COLUMNS } from './email-view.js';

/** The most include_total counts: past it, `total` says this many and `total_capped` that there are more. */
const TOTAL_CAP = 1000;
const CAP = TOTAL_CAP.toLocaleString('en-US');

const DOC = listDoc('List sent emails', EMAIL_SUMMARY_SCHEMA, {
  query: {
    ...EMAIL_FILTERS_QUERY,
    include_total: oneOfValues(['true', 'false'], {
      description: `With \`true\`, the answer adds \`total\` and \`total_capped\`: how many emails the filters match (all pages), counted up to ${CAP}.`,
    }),
  },
});
/** Resend's list envelope, and the count include_total adds. */
const RESPONSE = object(
  {
    ...listOf(EMAIL_SUMMARY_SCHEMA).properties,
    total: integer({ description: `With include_total=true: how many emails the filters match, at most ${CAP}.` }),
    total_capped: boolean({ description: 'With include_total=true: whether more emails match than `total` says.' }),
  },
  ['object', 'has_more', 'data'],
);

interface CountRow {
  count: number;
}

export function listEmails(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails',
    doc: {
      ...DOC,
      response: { status: 200, schema: RESPONSE },
      description:
        'The filters (last_event, from, to, subject, tag, created_after, created_before, search) are Postline additions; they combine with AND. So is include_total.',
    },
    async handler({ principal, query }) {
      const page = parsePage(query);
      const filters = parseEmailFilters(query, 1);
      const where = ['account_id = $1', ...filters.conditions].join(' AND ');
      const params = [principal.accountId, ...filters.params];
      const [{ rows, hasMore }, total] = await Promise.all([
        listPage<EmailSummaryRow>(db, { table: 'emails', columns: SUMMARY_COLUMNS, where, cursorWhere: 'account_id = $1', params, page }),
        query.include_total === 'true'
          ? db.one<CountRow>(`SELECT count(*)::int AS count FROM (SELECT 1 FROM emails WHERE ${where} LIMIT ${TOTAL_CAP + 1}) matching`, params)
          : undefined,
      ]);
      const body = envelope(rows.map(emailSummary), hasMore);
      if (!total) return { body };
      return { body: { ...body, total: Math.min(total.count, TOTAL_CAP), total_capped: total.count > TOTAL_CAP } };
    },
  };
}
