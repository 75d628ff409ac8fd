// What came back to an email's return path, on its page (GET /emails/:id/reports, src/inbound/):
// each message with what it was recognised as and why (a bounce, a delay, a complaint, an
// auto-reply, a report that changes nothing, or unrecognised), and what each report in it came
// to: the recipient, the enhanced status, the bounce's type and subType, the event recorded.
import type { Item } from '../api';
import { ErrorMessage, formatTime } from '../components';
import { ListTable, ShowMore, useListReadOn } from '../list-table';

type ReturnPathReport = Item<'/emails/{id}/reports'>;

const VERDICT_CLASS: Partial<Record<ReturnPathReport['verdict'], string>> = {
  bounce: 'status-failed',
  complaint: 'status-failed',
  delay: 'status-pending',
  auto_reply: 'status-verified',
};

function Findings({ report }: { report: ReturnPathReport }) {
  if (report.reports.length === 0) return <span className="hint">—</span>;
  return (
    <ul>
      {report.reports.map((f, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a stored message's reports may repeat and never change order
        <li key={i}>
          {f.recipient ?? '(no recipient of this email)'}
          {f.status && <> · {f.status}</>}
          {f.bounce && (
            <>
              {' '}
              · {f.bounce.type} ({f.bounce.subType})
            </>
          )}
          {' · '}
          {f.event ? f.event.replace('email.', '') : 'no event (a repeat, or no recipient matched)'}
          {f.diagnostic_code && (
            <div>
              <code>{f.diagnostic_code}</code>
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

export function ReturnPathReports({ path }: { path: string }) {
  const reports = useListReadOn<ReturnPathReport>(['email-reports', path], (after) => `${path}/reports${after ? `?after=${after}` : ''}`, 5000);
  return (
    <section aria-labelledby="email-reports-title">
      <h2 id="email-reports-title">Return path</h2>
      <ErrorMessage error={reports.list.error} />
      {reports.rows &&
        (reports.rows.length === 0 ? (
          <p className="hint">Nothing came back to this email's return path.</p>
        ) : (
          <ListTable
            className="return-path-reports"
            rows={reports.rows}
            rowHeaders={false}
            columns={[
              { header: 'Received', cell: (r) => formatTime(r.received_at) },
              { header: 'From', cell: (r) => r.from ?? (r.mail_from || '(null sender)') },
              {
                header: 'Verdict',
                cell: (r) => <span className={`status ${VERDICT_CLASS[r.verdict] ?? ''}`}>{r.verdict.replace('_', ' ')}</span>,
              },
              { header: 'Why', cell: (r) => r.reason },
              { header: 'Reports', cell: (r) => <Findings report={r} /> },
            ]}
          />
        ))}
      <ShowMore list={reports.list} what="reports" />
    </section>
  );
}
