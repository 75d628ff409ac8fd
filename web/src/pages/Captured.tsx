// Captured mail (sandbox mode, src/sandbox/routes.ts), shown as Mailpit does: the list, and a
// message's rendered HTML, text, headers, DKIM results and raw download. Mail is hostile
// content: its HTML is rendered only in a frame sandboxed without scripts or same-origin, and
// fetches nothing remote until the person asks.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type List } from '../api';
import { ErrorMessage, formatTime, Pager, useCursor } from '../components';
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
  headers: { name: string; value: string }[];
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

/**
 * The srcdoc of the preview frame: the mail's HTML behind a CSP of its own. Inline styles are
 * what mail is made of; images only from the message itself (data:, cid:) unless remote ones
 * are asked for, since a remote image tells the sender the mail was opened. (The frame also
 * inherits the dashboard's CSP: src/http/dashboard.ts allows what is allowed here.)
 */
function previewDocument(html: string, remote: boolean): string {
  const anywhere = remote ? ' https: http:' : '';
  const policy = `default-src 'none'; style-src 'unsafe-inline'${anywhere}; img-src data: cid:${anywhere}; font-src${anywhere || " 'none'"}`;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  // After a doctype (so the mail keeps its rendering mode), else first: it guards what follows.
  return html.replace(/^(\s*<!doctype[^>]*>)?/i, (doctype) => `${doctype}${meta}`);
}

export function CapturedMessagePage({ id }: { id: string }) {
  const [remote, setRemote] = useState(false);
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
          <h2>HTML</h2>
          {m.html === null ? (
            <p className="hint">This message has no HTML part.</p>
          ) : (
            <>
              {!remote && (
                <p className="row">
                  <span className="hint">Remote images are blocked: loading them tells the sender the message was opened.</span>
                  <button type="button" className="secondary small" onClick={() => setRemote(true)}>
                    Load remote images
                  </button>
                </p>
              )}
              <iframe className="preview" title="The message's HTML" sandbox="" referrerPolicy="no-referrer" srcDoc={previewDocument(m.html, remote)} />
            </>
          )}
          <h2>Text</h2>
          {m.text === null ? <p className="hint">This message has no text part.</p> : <pre className="mail-text">{m.text}</pre>}
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
          <h2>Headers</h2>
          <div className="table-wrap">
            <table className="headers">
              <tbody>
                {m.headers.map((h, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a header may repeat (Received); their order is the message's
                  <tr key={i}>
                    <th scope="row">{h.name}</th>
                    <td>
                      <code>{h.value}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
