// Captured mail (sandbox mode, src/sandbox/routes.ts), shown as Mailpit does: the list, and a
// message's rendered HTML, text, headers (mail-viewer.tsx), DKIM results and raw download.
import { useQuery } from '@tanstack/react-query';
import { type Answer, api, type Item } from '../api';
import { ErrorMessage, formatTime } from '../components';
import { ListTable, PagedTable, usePagedList } from '../list-table';
import { HeaderTable, MailBody } from '../mail-viewer';
import { follow } from '../router';

type CapturedSummary = Item<'/sandbox/messages'>;
type CapturedMessage = Answer<'/sandbox/messages/{id}'>;

export function CapturedListPage() {
  const list = usePagedList<CapturedSummary>(['captured'], (after) => `/sandbox/messages?limit=50${after ? `&after=${after}` : ''}`, 5000);
  return (
    <>
      <h1>Captured mail</h1>
      <p>Sandbox mode: nothing leaves this machine. Every email Postline would have delivered is caught here instead.</p>
      <PagedTable
        paged={list}
        empty="Nothing captured yet: send an email with your API key and it appears here."
        columns={[
          {
            header: 'Subject',
            cell: (m) => (
              <a href={`/dashboard/captured/${m.id}`} onClick={follow(`/captured/${m.id}`)}>
                {m.subject || '(no subject)'}
              </a>
            ),
          },
          { header: 'From', cell: (m) => m.from },
          { header: 'To', cell: (m) => m.to.join(', ') },
          { header: 'DKIM', cell: (m) => <Verdict value={m.dkim} /> },
          { header: 'Captured', cell: (m) => formatTime(m.created_at) },
        ]}
      />
    </>
  );
}

function Verdict({ value }: { value: string }) {
  return <span className={`status ${value === 'pass' ? 'status-verified' : value === 'none' ? '' : 'status-failed'}`}>{value}</span>;
}

export function CapturedMessagePage({ id }: { id: string }) {
  const message = useQuery({ queryKey: ['captured-message', id], queryFn: () => api<CapturedMessage>('GET', `/sandbox/messages/${encodeURIComponent(id)}`) });
  const m = message.data;
  return (
    <>
      <p>
        <a href="/dashboard/captured" onClick={follow('/captured')}>
          ← Captured mail
        </a>
      </p>
      <ErrorMessage error={message.error} />
      {m && (
        <>
          <h1>{m.subject || '(no subject)'}</h1>
          <dl className="facts">
            <dt>From</dt>
            <dd>{m.from}</dd>
            <dt>To</dt>
            <dd>{m.to.join(', ')}</dd>
            <dt>Return path</dt>
            <dd>{m.mail_from}</dd>
            <dt>Captured</dt>
            <dd>{formatTime(m.created_at)}</dd>
            <dt>DKIM</dt>
            <dd>
              <Verdict value={m.dkim} />
            </dd>
            <dt>Size</dt>
            <dd>{m.size.toLocaleString()} bytes</dd>
          </dl>
          <p>
            {/* A plain link: a GET needs only the session cookie, and the answer is an attachment. */}
            <a href={`/sandbox/messages/${encodeURIComponent(m.id)}/raw`} download={`${m.id}.eml`}>
              Download the raw message (.eml)
            </a>
          </p>
          <MailBody html={m.html} text={m.text} />
          <h2>DKIM results</h2>
          {m.dkim_results.length === 0 ? (
            <p className="hint">No DKIM signature.</p>
          ) : (
            <ListTable
              rows={m.dkim_results}
              rowHeaders={false}
              rowKey={(_, i) => i /* results have no identity of their own and never reorder */}
              columns={[
                { header: 'Result', cell: (r) => <Verdict value={r.result} /> },
                { header: 'Domain', cell: (r) => r.domain ?? '—' },
                { header: 'Selector', cell: (r) => r.selector ?? '—' },
                { header: 'Comment', cell: (r) => r.comment ?? '' },
              ]}
            />
          )}
          {m.attachments.length > 0 && (
            <>
              <h2>Attachments</h2>
              <ul>
                {m.attachments.map((a, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: attachments may share a name; their order is the message's
                  <li key={i}>
                    {a.filename ?? '(no name)'} · {a.content_type} · {a.size.toLocaleString()} bytes
                  </li>
                ))}
              </ul>
            </>
          )}
          <HeaderTable headers={m.headers} />
        </>
      )}
    </>
  );
}
