// Captured mail (sandbox mode, src/sandbox/routes.ts), shown as Mailpit does: the list, searched
// as one types, with "Delete all"; and a message's rendered HTML, its HTML source, text,
// headers (mail-viewer.tsx), DKIM results, attachments, link check, release and raw download
// (captured-actions.tsx), and its deletion. Deleting asks first.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { type Answer, api, type Item } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime, RecordError, Tabs } from '../components';
import { forgetList, ListTable, PagedTable, usePagedList } from '../list-table';
import { HeaderTable, MailHtml } from '../mail-viewer';
import { follow, navigate } from '../router';
import { CapturedAttachments, HtmlSource, LinkCheckPanel, ReleasePanel } from './captured-actions';

type CapturedSummary = Item<'/sandbox/messages'>;
type CapturedMessage = Answer<'/sandbox/messages/{id}'>;
type DeletedAll = Answer<'/sandbox/messages', 'delete'>;
type Sandbox = Answer<'/sandbox'>;

/** How long typing pauses before the list is searched. */
const SEARCH_DELAY_MS = 300;

/** `value` once it has stopped changing for `delayMs`. */
function useSettled<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

export function CapturedListPage() {
  const queryClient = useQueryClient();
  const searchId = useId();
  const [draft, setDraft] = useState('');
  const search = useSettled(draft.trim(), SEARCH_DELAY_MS);
  const [asking, setAsking] = useState(false);
  const [deleted, setDeleted] = useState<number | null>(null);
  const removeAll = useMutation({
    mutationFn: () => api<DeletedAll>('DELETE', '/sandbox/messages'),
    onSuccess: (answer) => {
      setAsking(false);
      setDeleted(answer.deleted);
      queryClient.invalidateQueries({ queryKey: ['captured'] });
    },
  });
  return (
    <>
      <h1>Captured mail</h1>
      <p>Sandbox mode: nothing leaves this machine. Every email Postline would have delivered is caught here instead.</p>
      <div className="row captured-toolbar">
        <search>
          <label htmlFor={searchId} className="visually-hidden">
            Search captured mail
          </label>
          <input
            id={searchId}
            type="search"
            placeholder="Search subject, from, to…"
            value={draft}
            onChange={(event) => {
              setDraft(event.target.value);
              setDeleted(null);
            }}
          />
        </search>
        <button type="button" className="danger" onClick={() => setAsking(true)}>
          Delete all…
        </button>
      </div>
      <p role="status" className="hint">
        {deleted !== null && `Deleted ${deleted} captured ${deleted === 1 ? 'message' : 'messages'}.`}
      </p>
      {/* Keyed by the search: a new search starts again at the first page. */}
      <CapturedList key={search} search={search} />
      <ConfirmDialog open={asking} title="Delete all captured mail?" confirm="Delete all" onConfirm={() => removeAll.mutate()} onClose={() => setAsking(false)}>
        <p>Every message this account's sandbox caught goes, on every page, whatever the search. The emails themselves stay under Emails, with their events.</p>
        <ErrorMessage error={removeAll.error} />
      </ConfirmDialog>
    </>
  );
}

function CapturedList({ search }: { search: string }) {
  const list = usePagedList<CapturedSummary>(
    ['captured', search],
    (after) => `/sandbox/messages?limit=50${search ? `&search=${encodeURIComponent(search)}` : ''}${after ? `&after=${after}` : ''}`,
    5000,
    { keepPrevious: true },
  );
  return (
    <PagedTable
      paged={list}
      empty={search ? `No captured mail matches “${search}”.` : 'Nothing captured yet: send an email with your API key and it appears here.'}
      caption={search ? `Captured mail matching “${search}”` : 'Captured mail'}
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
  );
}

function Verdict({ value }: { value: string }) {
  return <span className={`status ${value === 'pass' ? 'status-verified' : value === 'none' ? '' : 'status-failed'}`}>{value}</span>;
}

export function CapturedMessagePage({ id }: { id: string }) {
  const message = useQuery({ queryKey: ['captured-message', id], queryFn: () => api<CapturedMessage>('GET', `/sandbox/messages/${encodeURIComponent(id)}`) });
  const sandbox = useQuery({ queryKey: ['sandbox'], queryFn: () => api<Sandbox>('GET', '/sandbox'), staleTime: Number.POSITIVE_INFINITY });
  const m = message.data;
  return (
    <>
      <p>
        <a href="/dashboard/captured" onClick={follow('/captured')}>
          ← Captured mail
        </a>
      </p>
      <RecordError what="Captured email" query={message} />
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
          <MessageActions message={m} />
          <CapturedBody message={m} />
          <CapturedAttachments message={m} />
          <LinkCheckPanel message={m} />
          <ReleasePanel message={m} sandbox={sandbox.data} />
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
          <HeaderTable headers={m.headers} />
        </>
      )}
    </>
  );
}

/** The raw download, and Delete (asked first; back to the list after). */
function MessageActions({ message }: { message: CapturedMessage }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => api('DELETE', `/sandbox/messages/${encodeURIComponent(message.id)}`),
    onSuccess: () => {
      setAsking(false);
      forgetList(queryClient, ['captured']);
      queryClient.removeQueries({ queryKey: ['captured-message', message.id] });
      navigate('/captured');
    },
  });
  return (
    <div className="row captured-actions">
      {/* A plain link: a GET needs only the session cookie, and the answer is an attachment. */}
      <a href={`/sandbox/messages/${encodeURIComponent(message.id)}/raw`} download={`${message.id}.eml`}>
        Download the raw message (.eml)
      </a>
      <button type="button" className="danger small" onClick={() => setAsking(true)}>
        Delete…
      </button>
      <ConfirmDialog open={asking} title="Delete this captured message?" confirm="Delete" onConfirm={() => remove.mutate()} onClose={() => setAsking(false)}>
        <p>The sandbox's copy goes. The email it was captured from stays under Emails, with its events.</p>
        <ErrorMessage error={remove.error} />
      </ConfirmDialog>
    </div>
  );
}

/** The message in tabs: its HTML rendered (sandboxed), the HTML's source as text, the text part. */
function CapturedBody({ message }: { message: CapturedMessage }) {
  const [tab, setTab] = useState(message.html === null && message.text !== null ? 'text' : 'html');
  const noHtml = <p className="hint">This message has no HTML part.</p>;
  return (
    <section aria-labelledby="captured-message-title">
      <h2 id="captured-message-title">Message</h2>
      <Tabs
        label="The message"
        selected={tab}
        onSelect={setTab}
        tabs={[
          { id: 'html', label: 'HTML', panel: () => (message.html === null ? noHtml : <MailHtml html={message.html} title="The message's HTML" />) },
          { id: 'source', label: 'HTML source', panel: () => (message.html === null ? noHtml : <HtmlSource html={message.html} />) },
          {
            id: 'text',
            label: 'Text',
            panel: () => (message.text === null ? <p className="hint">This message has no text part.</p> : <pre className="mail-text">{message.text}</pre>),
          },
        ]}
      />
    </section>
  );
}
