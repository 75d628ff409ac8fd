// How the dashboard shows a message (captured, sent or received): its rendered HTML, text,
// headers and attachments. Mail is hostile content: its HTML is rendered only in a frame
// sandboxed without scripts or same-origin, and fetches nothing remote until the person asks.
import { useState } from 'react';

export interface MailHeader {
  name: string;
  value: string;
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

/**
 * Only the sandboxed frame, for pages with headings of their own (the template editor's live
 * preview): no scripts, no same-origin, remote content only when `remote`.
 */
export function PreviewFrame({ html, title, remote = false }: { html: string; title: string; remote?: boolean }) {
  return <iframe className="preview" title={title} sandbox="" referrerPolicy="no-referrer" srcDoc={previewDocument(html, remote)} />;
}

/**
 * The HTML and text parts under their own headings, as a reader sees them. `noText` says what
 * a missing text part means where it is not final (a broadcast's is made from its HTML when sent).
 */
export function MailBody({ html, text, noText = 'This message has no text part.' }: { html: string | null; text: string | null; noText?: string }) {
  const [remote, setRemote] = useState(false);
  return (
    <>
      <h2>HTML</h2>
      {html === null ? (
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
          <PreviewFrame html={html} remote={remote} title="The message's HTML" />
        </>
      )}
      <h2>Text</h2>
      {text === null ? <p className="hint">{noText}</p> : <pre className="mail-text">{text}</pre>}
    </>
  );
}

export function HeaderTable({ headers }: { headers: MailHeader[] }) {
  return (
    <>
      <h2>Headers</h2>
      <div className="table-wrap">
        <table className="headers">
          <tbody>
            {headers.map((h, i) => (
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
  );
}
