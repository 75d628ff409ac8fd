// Captured mail (sandbox mode, src/sandbox/routes.ts), shown as Mailpit does: the list, and a
// message's rendered HTML, text, headers (mail-viewer.tsx), DKIM results and raw download.
import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../api';
import { ErrorMessage, formatTime, Pager, useCursor } from '../components';
import { HeaderTable, MailBody, type MailHeader } from '../mail-viewer';
import { follow } from '../router';

interface CapturedSummary {
  id: string;
  email_id: string | null;
  from: string;
  to: string[];
  subject: string;
  dkim: string;
  created_at: string;
}
interface CapturedMessage extends CapturedSummary {
  mail_from: string;
  html: string | null;
  text: string | null;
  headers: MailHeader[];
  attachments: { filename: string | null; content_type: string; size: number }[];
  dkim_results: { result: string; domain: string | null; selector: string | null; comment: string | null }[];
  size: number;
}

export function CapturedListPage() {
  const cursor = useCursor();
  const list = useQuery({
    queryKey: ['captured', cursor.after],
    queryFn: () => api<List<CapturedSummary>>('GET', `/sandbox/messages?limit=50${cursor.after ? `&after=${cursor.after}` : ''}`),
    refetchInterval: 5000,
  });
  const rows = list.data?.data ?? [];
  return (
    <>
      <h1>Captured mail</h1>
      <p>Sandbox mode: nothing leaves this machine. Every email Postline would have delivered is caught here instead.</p>
      <ErrorMessage error={list.error} />
      {list.data && rows.length === 0 && cursor.page === 1 && (
        <p className="notice">Nothing captured yet: send an email with your API key and it appears here.</p>
      )}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">DKIM</th>
                <th scope="col">Captured</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => (
                <tr key={m.id}>
                  <th scope="row">
                    <a href={`/dashboard/captured/${m.id}`} onClick={follow(`/captured/${m.id}`)}>
                      {m.subject || '(no subject)'}
                    </a>
                  </th>
                  <td>{m.from}</td>
                  <td>{m.to.join(', ')}</td>
                  <td>
                    <Verdict value={m.dkim} />
                  </td>
                  <td>{formatTime(m.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} hasMore={list.data?.has_more ?? false} lastId={rows.at(-1)?.id} />
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
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Result</th>
                    <th scope="col">Domain</th>
                    <th scope="col">Selector</th>
                    <th scope="col">Comment</th>
                  </tr>
                </thead>
                <tbody>
                  {m.dkim_results.map((r, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: results have no identity of their own and never reorder
                    <tr key={i}>
                      <td>
                        <Verdict value={r.result} />
                      </td>
                      <td>{r.domain ?? '—'}</td>
                      <td>{r.selector ?? '—'}</td>
                      <td>{r.comment ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
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
