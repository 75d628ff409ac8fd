// What a captured message's page (Captured.tsx) does beyond showing it, as Mailpit does: its
// attachments as downloads, the HTML's source as text, a check of its links (asked for, never
// automatic), and its release to a real address through the operator's relay, with the
// releases made so far. Mail is hostile content: the source, the links and every name are text
// (React escapes them), never markup or a link to follow.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type Answer, api, type RequestBody } from '../api';
import { ConfirmDialog, CopyButton, ErrorMessage, formatTime } from '../components';
import { ListTable } from '../list-table';
import { follow } from '../router';

type CapturedMessage = Answer<'/sandbox/messages/{id}'>;
type LinkCheck = Answer<'/sandbox/messages/{id}/link-check', 'post'>;
type Release = Answer<'/sandbox/messages/{id}/release', 'post'>;
type Sandbox = Answer<'/sandbox'>;

const messagePath = (id: string) => `/sandbox/messages/${encodeURIComponent(id)}`;

/** The HTML part as text: what the sender wrote, escaped, in a box that scrolls (a keyboard stop). */
export function HtmlSource({ html }: { html: string }) {
  return (
    <>
      <p className="row preview-tools">
        <span className="hint">The HTML part as sent, shown as text: nothing in it runs or loads.</span>
        <CopyButton value={html} label="Copy the HTML source" />
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by keyboard */}
      <section className="mail-source captured-source" tabIndex={0} aria-label="The HTML source">
        <pre>{html}</pre>
      </section>
    </>
  );
}

export function CapturedAttachments({ message }: { message: CapturedMessage }) {
  if (message.attachments.length === 0) return null;
  return (
    <section aria-labelledby="captured-attachments">
      <h2 id="captured-attachments">Attachments</h2>
      <ListTable
        rows={message.attachments}
        rowKey={(a) => a.index}
        caption="The message's attachments"
        columns={[
          {
            header: 'File',
            // A plain link: a GET needs only the session cookie, and the answer is always a download.
            cell: (a) => (
              <a href={`${messagePath(message.id)}/attachments/${a.index}`} download>
                {a.filename ?? `(no name, attachment ${a.index + 1})`}
              </a>
            ),
          },
          { header: 'Type', cell: (a) => <code>{a.content_type}</code> },
          { header: 'Size', cell: (a) => `${a.size.toLocaleString()} bytes`, className: 'number' },
        ]}
      />
    </section>
  );
}

function linkVerdict(link: LinkCheck['links'][number]): { className: string; label: string } {
  if (link.status === null) return { className: 'status-failed', label: 'no answer' };
  if (link.status >= 400 || link.error) return { className: 'status-failed', label: String(link.status) };
  if (link.status >= 300) return { className: 'status-pending', label: String(link.status) };
  return { className: 'status-verified', label: String(link.status) };
}

/** The links of the HTML, each with the HTTP status it answers now: checked when asked. */
export function LinkCheckPanel({ message }: { message: CapturedMessage }) {
  const check = useMutation({ mutationFn: () => api<LinkCheck>('POST', `${messagePath(message.id)}/link-check`) });
  const result = check.data;
  const broken = result?.links.filter((l) => linkVerdict(l).className === 'status-failed').length ?? 0;
  return (
    <section aria-labelledby="captured-links">
      <h2 id="captured-links">Links</h2>
      {message.html === null ? (
        <p className="hint">This message has no HTML part: no links to check.</p>
      ) : (
        <p className="row">
          <span className="hint">Postline requests each http(s) link of the HTML once (HEAD) and shows its answer. Nothing is requested until you ask.</span>
          <button type="button" className="secondary small" disabled={check.isPending} onClick={() => check.mutate()}>
            {check.isPending ? 'Checking links…' : result ? 'Check links again' : 'Check links'}
          </button>
        </p>
      )}
      <ErrorMessage error={check.error} />
      <p role="status" className="hint">
        {result &&
          (result.links.length === 0
            ? 'The HTML has no http(s) links.'
            : `${result.links.length} ${result.links.length === 1 ? 'link' : 'links'} checked: ${broken === 0 ? 'all answered' : `${broken} with a problem`}.`)}
      </p>
      {result && result.links.length > 0 && (
        <ListTable
          rows={result.links}
          rowKey={(l) => l.url}
          caption="Links and their answers"
          columns={[
            { header: 'Link', cell: (l) => <code>{l.url}</code>, className: 'link-cell' },
            {
              header: 'Status',
              cell: (l) => {
                const verdict = linkVerdict(l);
                return <span className={`status ${verdict.className}`}>{verdict.label}</span>;
              },
            },
            {
              header: 'Details',
              cell: (l) => l.error ?? (l.redirected_to ? `Redirected to ${l.redirected_to}` : ''),
              className: 'link-cell',
            },
          ]}
        />
      )}
      {result && result.unchecked > 0 && <p className="hint">{result.unchecked} more links were not checked: at most 50 are.</p>}
    </section>
  );
}

/** Release to a real address through the operator's relay (or why it is off), and the releases so far. */
export function ReleasePanel({ message, sandbox }: { message: CapturedMessage; sandbox: Sandbox | undefined }) {
  const queryClient = useQueryClient();
  const inputId = useId();
  const [to, setTo] = useState('');
  const [asking, setAsking] = useState(false);
  const release = useMutation({
    mutationFn: () =>
      api<Release>('POST', `${messagePath(message.id)}/release`, { to: to.trim() } satisfies RequestBody<'/sandbox/messages/{id}/release', 'post'>),
    onSuccess: () => {
      setAsking(false);
      setTo('');
      queryClient.invalidateQueries({ queryKey: ['captured-message', message.id] });
    },
    onError: () => setAsking(false),
  });
  const relay = sandbox?.release.relay;
  return (
    <section className="panel captured-release" aria-labelledby="captured-release">
      <h2 id="captured-release">Release</h2>
      {sandbox && !sandbox.release.enabled && (
        <p className="hint">
          Release is off: nothing leaves this sandbox. The operator can name an SMTP relay for released mail with <code>POSTLINE_SANDBOX_RELEASE_URL</code>.
        </p>
      )}
      {sandbox?.release.enabled && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            release.reset();
            setAsking(true);
          }}
        >
          <p className="hint">
            Sends this message on to a real address through the relay <code>{relay}</code>: a new email with its own id, events and webhooks.
          </p>
          <label htmlFor={inputId}>Release to</label>
          <div className="row">
            <input id={inputId} type="text" inputMode="email" autoComplete="email" required value={to} onChange={(event) => setTo(event.target.value)} />
            <button type="submit" disabled={release.isPending}>
              Release…
            </button>
          </div>
        </form>
      )}
      <ErrorMessage error={release.error} />
      <p role="status">
        {release.data && (
          <>
            Released to {release.data.to.join(', ')} as{' '}
            <a href={`/dashboard/emails/${release.data.id}`} onClick={follow(`/emails/${release.data.id}`)}>
              a new email
            </a>
            .
          </>
        )}
      </p>
      {message.releases.length > 0 && (
        <ListTable
          rows={message.releases}
          rowKey={(r) => r.email_id}
          caption="Releases of this message"
          columns={[
            { header: 'To', cell: (r) => r.to.join(', ') },
            {
              header: 'Last event',
              cell: (r) => (
                <a href={`/dashboard/emails/${r.email_id}`} onClick={follow(`/emails/${r.email_id}`)}>
                  {r.last_event ?? 'queued'}
                </a>
              ),
            },
            { header: 'Released', cell: (r) => formatTime(r.created_at) },
          ]}
        />
      )}
      <ConfirmDialog open={asking} title="Release this message?" confirm="Release" onConfirm={() => release.mutate()} onClose={() => setAsking(false)}>
        <p>
          It leaves the sandbox: Postline sends it to <strong>{to.trim()}</strong> through <code>{relay}</code>, as a new email.
        </p>
      </ConfirmDialog>
    </section>
  );
}
