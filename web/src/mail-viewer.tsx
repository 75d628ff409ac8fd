// How the dashboard shows a message (captured, sent or received): its rendered HTML, text,
// headers and attachments. Mail is hostile content: its HTML is rendered only in a frame
// sandboxed without scripts or same-origin, and fetches nothing remote until the person asks.
import { type CSSProperties, useEffect, useId, useRef, useState } from 'react';
import { currentCsrfToken } from './api';

export interface MailHeader {
  name: string;
  value: string;
}

/**
 * Only the sandboxed frame, for pages with headings of their own (the template editor's live
 * preview): no scripts, no same-origin, remote content only when `remote`. The HTML is posted
 * into the frame and comes back from Postline under a policy made for mail
 * (src/http/mail-preview.ts): inline styles, images only from the message itself (data:, cid:)
 * unless remote ones are asked for, since a remote image tells the sender the mail was opened.
 * `style` sizes the frame (its content cannot be measured from here: it has no origin).
 */
export function PreviewFrame({ html, title, remote = false, style }: { html: string; title: string; remote?: boolean; style?: CSSProperties }) {
  const name = `preview${useId()}`;
  const form = useRef<HTMLFormElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form's inputs carry them; each change posts the form again
  useEffect(() => form.current?.submit(), [html, remote]);
  return (
    <>
      <form ref={form} method="post" action="/dashboard/preview" target={name} hidden>
        <input type="hidden" name="csrf_token" value={currentCsrfToken()} />
        <input type="hidden" name="remote" value={String(remote)} />
        <input type="hidden" name="html" value={html} />
      </form>
      <iframe name={name} className="preview" title={title} sandbox="" referrerPolicy="no-referrer" style={style} />
    </>
  );
}

/**
 * The HTML and text parts under their own headings, as a reader sees them. `noText` says what
 * a missing text part means where it is not final (a broadcast's is made from its HTML when sent).
 */
export function MailBody({ html, text, noText = 'This message has no text part.' }: { html: string | null; text: string | null; noText?: string }) {
  return (
    <>
      <h2>HTML</h2>
      {html === null ? <p className="hint">This message has no HTML part.</p> : <MailHtml html={html} title="The message's HTML" />}
      <h2>Text</h2>
      {text === null ? <p className="hint">{noText}</p> : <pre className="mail-text">{text}</pre>}
    </>
  );
}

/** A message's HTML in the sandboxed frame, its remote images blocked until the reader asks for them. */
export function MailHtml({ html, title, frameStyle }: { html: string; title: string; frameStyle?: CSSProperties }) {
  const [remote, setRemote] = useState(false);
  return (
    <>
      {!remote && (
        <p className="row">
          <span className="hint">Remote images are blocked: loading them tells the sender the message was opened.</span>
          <button type="button" className="secondary small" onClick={() => setRemote(true)}>
            Load remote images
          </button>
        </p>
      )}
      <PreviewFrame html={html} remote={remote} title={title} style={frameStyle} />
    </>
  );
}

/** `heading`: under its own "Headers" heading, unless something else names it (a tab). */
export function HeaderTable({ headers, heading = true }: { headers: MailHeader[]; heading?: boolean }) {
  return (
    <>
      {heading && <h2>Headers</h2>}
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
