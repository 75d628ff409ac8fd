// Emails (GET /emails with its filters, src/emails/): the list, filtered from a form whose
// values live in the URL's query (so Back returns to the previous filters), and an email's
// page: its facts, events on a timeline, every delivery attempt, what came back to its return
// path (email-reports.tsx), the message (mail-viewer.tsx),
// headers and the raw download, attachments; a scheduled email rescheduled or canceled.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState, useSyncExternalStore } from 'react';
import { type Answer, ApiFailure, api, everyValue, type Item, type List, type RequestBody } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime } from '../components';
import { ListTable, PagedTable, ShowMore, usePagedList, useListReadOn } from '../list-table';
import { HeaderTable, MailBody, type MailHeader } from '../mail-viewer';
import { follow, navigate } from '../router';
import { ReturnPathReports } from './email-reports';

type EmailSummary = Item<'/emails'>;
type Email = Answer<'/emails/{id}'>;
type LastEvent = Email['last_event'];
type Attempt = Item<'/emails/{id}/attempts'>;
type Attachment = Item<'/emails/{id}/attachments'>;
type EmailEvent = Item<'/emails/{id}/events'>;

const LAST_EVENTS = everyValue<LastEvent>({
  scheduled: true,
  sent: true,
  delivered: true,
  delivery_delayed: true,
  bounced: true,
  complained: true,
  failed: true,
  suppressed: true,
  canceled: true,
  opened: true,
  clicked: true,
});
const FILTERS = [
  { name: 'to', label: 'Recipient address', type: 'email' },
  { name: 'from', label: 'From contains', type: 'text' },
  { name: 'subject', label: 'Subject contains', type: 'text' },
  { name: 'tag', label: 'Tag (name or name:value)', type: 'text' },
  { name: 'created_after', label: 'Created from (date)', type: 'date' },
  { name: 'created_before', label: 'Created before (date)', type: 'date' },
] as const;
const FILTER_NAMES = ['last_event', ...FILTERS.map((f) => f.name)];

const STATUS_CLASS: Record<string, string> = {
  delivered: 'status-verified',
  opened: 'status-verified',
  clicked: 'status-verified',
  bounced: 'status-failed',
  failed: 'status-failed',
  complained: 'status-failed',
  suppressed: 'status-failed',
  delivery_delayed: 'status-pending',
  scheduled: 'status-pending',
};
const label = (event: string) => event.replace('email.', '').replace('_', ' ');
function Status({ value }: { value: string }) {
  return <span className={`status ${STATUS_CLASS[value] ?? ''}`}>{label(value)}</span>;
}

// The query string, re-read on Back and Forward and on our own navigate() (which dispatches popstate below).
const subscribeToHistory = (listener: () => void) => {
  window.addEventListener('popstate', listener);
  return () => window.removeEventListener('popstate', listener);
};
const useSearch = () => useSyncExternalStore(subscribeToHistory, () => window.location.search);

export function EmailsPage() {
  const search = useSearch();
  // A new filter is a new list: its paging starts again (the key remounts it).
  return <EmailList key={search} search={search} />;
}

function EmailList({ search }: { search: string }) {
  const filters = new URLSearchParams(search);
  const active = FILTER_NAMES.filter((n) => filters.get(n));
  const query = new URLSearchParams({ limit: '50' });
  for (const name of active) query.set(name, filters.get(name)!);
  const list = usePagedList<EmailSummary>(['emails', query.toString()], (after) => `/emails?${query}${after ? `&after=${after}` : ''}`, 5000);

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const name of FILTER_NAMES) {
      const value = String(form.get(name) ?? '').trim();
      if (value) next.set(name, value);
    }
    go(next.size ? `/emails?${next}` : '/emails');
  };
  const go = (to: string) => {
    navigate(to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  };
  return (
    <>
      <h1>Emails</h1>
      <p>Every email sent from this account, newest first. Open one to see what happened to it.</p>
      <form className="filters" onSubmit={apply} aria-label="Filter emails">
        <div>
          <label htmlFor="filter-last_event">Last event</label>
          <select id="filter-last_event" name="last_event" defaultValue={filters.get('last_event') ?? ''}>
            <option value="">Any</option>
            {LAST_EVENTS.map((e) => (
              <option key={e} value={e}>
                {label(e)}
              </option>
            ))}
          </select>
        </div>
        {FILTERS.map((f) => (
          <div key={f.name}>
            <label htmlFor={`filter-${f.name}`}>{f.label}</label>
            <input id={`filter-${f.name}`} name={f.name} type={f.type} defaultValue={filters.get(f.name) ?? ''} />
          </div>
        ))}
        <div className="filter-actions">
          <button type="submit">Filter</button>
          {active.length > 0 && (
            <button type="button" className="secondary" onClick={() => go('/emails')}>
              Clear filters
            </button>
          )}
        </div>
      </form>
      <PagedTable
        paged={list}
        className="emails"
        empty={
          active.length > 0
            ? 'No email matches these filters. Change or clear them to see more.'
            : 'No emails yet: send one with an API key (POST /emails, or the resend SDK) and it appears here.'
        }
        columns={[
          {
            header: 'Subject',
            cell: (e) => (
              <a href={`/dashboard/emails/${e.id}`} onClick={follow(`/emails/${e.id}`)}>
                {e.subject || '(no subject)'}
              </a>
            ),
          },
          { header: 'To', cell: (e) => e.to.join(', ') },
          { header: 'From', cell: (e) => e.from },
          { header: 'Last event', cell: (e) => <Status value={e.last_event} /> },
          { header: 'Created', cell: (e) => (e.scheduled_at && e.last_event === 'scheduled' ? `for ${formatTime(e.scheduled_at)}` : formatTime(e.created_at)) },
        ]}
      />
    </>
  );
}

const ENCODED_WORD = /=\?([^?\s]+)\?([QqBb])\?([^?\s]*)\?=/;

/** One RFC 2047 encoded word's text (an unknown charset is read as UTF-8). */
function decodeWord(charset: string, encoding: string, text: string): string {
  let bytes: Uint8Array;
  if (encoding.toUpperCase() === 'B') bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  else {
    const binary = text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  }
  try {
    return new TextDecoder(charset.split('*')[0]).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** A header value with its encoded words decoded for reading; the space between two words goes (RFC 2047 §6.2). */
function decodeWords(value: string): string {
  const pattern = new RegExp(`${ENCODED_WORD.source}(\\s+(?=${ENCODED_WORD.source}))?`, 'g');
  return value.replace(pattern, (_, charset: string, encoding: string, text: string) => {
    try {
      return decodeWord(charset, encoding, text);
    } catch {
      return _;
    }
  });
}

/** The header section of a raw message, unfolded (RFC 5322 §2.2.3), encoded words decoded (/raw keeps them as sent). */
function parseHeaders(raw: string): MailHeader[] {
  const end = raw.search(/\r?\n\r?\n/);
  const lines = (end < 0 ? raw : raw.slice(0, end)).split(/\r?\n/);
  const headers: MailHeader[] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line) && headers.length) headers.at(-1)!.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push({ name: line.slice(0, colon), value: line.slice(colon + 1).trim() });
    }
  }
  return headers.map((h) => ({ name: h.name, value: decodeWords(h.value) }));
}

export function EmailPage({ id }: { id: string }) {
  const path = `/emails/${encodeURIComponent(id)}`;
  const email = useQuery({ queryKey: ['email', id], queryFn: () => api<Email>('GET', path), refetchInterval: 5000 });
  // Oldest first, read on with "Show more": an email to a large list has many of each.
  const events = useListReadOn<EmailEvent>(['email-events', id], (after) => `${path}/events${after ? `?after=${after}` : ''}`, 5000);
  const attempts = useListReadOn<Attempt>(['email-attempts', id], (after) => `${path}/attempts${after ? `?after=${after}` : ''}`, 5000);
  const attachments = useQuery({ queryKey: ['email-attachments', id], queryFn: () => api<List<Attachment>>('GET', `${path}/attachments`) });
  // HEAD: whether the message exists yet (it is composed at the first attempt), without its bytes.
  const raw = useQuery({
    queryKey: ['email-raw', id, email.data?.last_event],
    queryFn: async () => (await fetch(`${path}/raw`, { method: 'HEAD', credentials: 'same-origin' })).ok,
    enabled: !!email.data,
  });
  const e = email.data;
  return (
    <>
      <p>
        <a href="/dashboard/emails" onClick={follow('/emails')}>
          ← Emails
        </a>
      </p>
      <ErrorMessage error={email.error} />
      {e && (
        <>
          <h1>{e.subject || '(no subject)'}</h1>
          <dl className="facts">
            <dt>Last event</dt>
            <dd>
              <Status value={e.last_event} />
            </dd>
            <dt>From</dt>
            <dd>{e.from}</dd>
            <dt>To</dt>
            <dd>{e.to.join(', ')}</dd>
            {e.cc && (
              <>
                <dt>Cc</dt>
                <dd>{e.cc.join(', ')}</dd>
              </>
            )}
            {e.bcc && (
              <>
                <dt>Bcc</dt>
                <dd>{e.bcc.join(', ')}</dd>
              </>
            )}
            {e.reply_to && (
              <>
                <dt>Reply to</dt>
                <dd>{e.reply_to.join(', ')}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{formatTime(e.created_at)}</dd>
            {e.scheduled_at && (
              <>
                <dt>Scheduled for</dt>
                <dd>{formatTime(e.scheduled_at)}</dd>
              </>
            )}
            <dt>Tags</dt>
            <dd>{e.tags.length ? e.tags.map((t) => `${t.name}: ${t.value}`).join(', ') : 'none'}</dd>
            <dt>Email id</dt>
            <dd>
              <code>{e.id}</code>
            </dd>
            <dt>Message-ID</dt>
            <dd>
              <code>{e.message_id}</code>
            </dd>
          </dl>
          {e.last_event === 'scheduled' && <ScheduleControls email={e} />}
          <h2>Timeline</h2>
          <ErrorMessage error={events.list.error} />
          {events.rows && <Timeline events={events.rows} />}
          <ShowMore list={events.list} what="events" />
          <h2>Delivery attempts</h2>
          <ErrorMessage error={attempts.list.error} />
          {attempts.rows && <Attempts attempts={attempts.rows} />}
          <ShowMore list={attempts.list} what="attempts" />
          <ReturnPathReports path={path} />
          <MailBody html={e.html} text={e.text} />
          <h2>Raw message</h2>
          {raw.data ? (
            <p>
              {/* A plain link: a GET needs only the session cookie, and the answer is an attachment. */}
              <a href={`${path}/raw`} download={`${e.id}.eml`}>
                Download the raw message (.eml)
              </a>
            </p>
          ) : (
            raw.data === false && <p className="hint">The message is composed and signed at its first delivery attempt; it can be downloaded from then on.</p>
          )}
          {raw.data && <RawHeaders path={path} />}
          <h2>Attachments</h2>
          <ErrorMessage error={attachments.error} />
          {attachments.data &&
            (attachments.data.data.length === 0 ? (
              <p className="hint">No attachments.</p>
            ) : (
              <ul>
                {attachments.data.data.map((a) => (
                  <li key={a.id}>
                    <a href={a.download_url} download={a.filename ?? undefined}>
                      {a.filename ?? '(no name)'}
                    </a>{' '}
                    · {a.content_type} · {a.size.toLocaleString()} bytes
                  </li>
                ))}
              </ul>
            ))}
        </>
      )}
    </>
  );
}

function Timeline({ events }: { events: EmailEvent[] }) {
  if (events.length === 0) return <p className="hint">No events yet.</p>;
  return (
    <ol className="timeline">
      {events.map((ev) => (
        <li key={ev.id}>
          <Status value={ev.type.replace('email.', '')} /> <time dateTime={ev.created_at}>{formatTime(ev.created_at)}</time>
          {ev.data.to && <span className="hint"> · {ev.data.to.join(', ')}</span>}
          {ev.data.bounce && (
            <div>
              {ev.data.bounce.type} ({ev.data.bounce.subType}): {ev.data.bounce.message}
            </div>
          )}
          {ev.data.click && <div>Clicked {ev.data.click.link}</div>}
          {ev.data.failed && <div>{ev.data.failed.reason}</div>}
          {ev.data.suppressed && <div>{ev.data.suppressed.message}</div>}
        </li>
      ))}
    </ol>
  );
}

function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return <p className="hint">No delivery attempt yet.</p>;
  return (
    <ListTable
      className="attempts"
      rows={attempts}
      rowHeaders={false}
      columns={[
        { header: 'Time', cell: (a) => formatTime(a.attempted_at) },
        { header: 'Recipient', cell: (a) => a.recipient },
        { header: 'MX host', cell: (a) => a.mx_host ?? '—' },
        { header: 'Reply', cell: (a) => <code>{a.response}</code> },
        { header: 'Outcome', cell: (a) => <Status value={a.outcome} /> },
        {
          header: 'TLS',
          cell: (a) =>
            a.tls ? (
              <>
                {a.tls.protocol ?? 'plain text'}
                <span className="hint block">{a.tls.requirement}</span>
              </>
            ) : (
              '—'
            ),
        },
      ]}
    />
  );
}

/** The message's headers, read from its raw form when asked (a message can be large). */
function RawHeaders({ path }: { path: string }) {
  const [shown, setShown] = useState(false);
  const headers = useQuery({
    queryKey: ['email-headers', path],
    queryFn: async () => {
      const res = await fetch(`${path}/raw`, { credentials: 'same-origin' });
      if (!res.ok) throw new ApiFailure(res.status, 'The raw message could not be read.', 'error');
      return parseHeaders(await res.text());
    },
    enabled: shown,
  });
  if (!shown)
    return (
      <button type="button" className="secondary small" onClick={() => setShown(true)}>
        Show headers
      </button>
    );
  return (
    <>
      <ErrorMessage error={headers.error} />
      {headers.data && <HeaderTable headers={headers.data} />}
    </>
  );
}

/** A datetime-local input's value for `iso` (the browser's own time zone). */
function localInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function ScheduleControls({ email }: { email: Email }) {
  const queryClient = useQueryClient();
  const inputId = useId();
  const [when, setWhen] = useState(localInput(email.scheduled_at!));
  const [asking, setAsking] = useState<'reschedule' | 'cancel' | null>(null);
  const refresh = () => queryClient.invalidateQueries({ predicate: (q) => String(q.queryKey[0]).startsWith('email') });
  const reschedule = useMutation({
    mutationFn: () => api('PATCH', `/emails/${email.id}`, { scheduled_at: new Date(when).toISOString() } satisfies RequestBody<'/emails/{id}', 'patch'>),
    onSuccess: refresh,
  });
  const cancel = useMutation({ mutationFn: () => api('POST', `/emails/${email.id}/cancel`), onSuccess: refresh });
  return (
    <section className="panel" aria-labelledby={`${inputId}-title`}>
      <h2 id={`${inputId}-title`}>Scheduled</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setAsking('reschedule');
        }}
      >
        <label htmlFor={inputId}>Send at (your time)</label>
        <div className="row">
          <input id={inputId} type="datetime-local" required value={when} onChange={(event) => setWhen(event.target.value)} />
          <button type="submit">Reschedule</button>
          <button type="button" className="danger" onClick={() => setAsking('cancel')}>
            Cancel sending
          </button>
        </div>
      </form>
      <ErrorMessage error={reschedule.error ?? cancel.error} />
      {/* One dialog for both questions: ConfirmDialog's title has a fixed id, so two on a page would share a name. */}
      <ConfirmDialog
        open={asking !== null}
        title={asking === 'cancel' ? 'Cancel this email?' : 'Reschedule this email?'}
        confirm={asking === 'cancel' ? 'Cancel sending' : 'Reschedule'}
        onClose={() => setAsking(null)}
        onConfirm={() => {
          if (asking === 'cancel') cancel.mutate();
          else reschedule.mutate();
          setAsking(null);
        }}
      >
        {asking === 'cancel' ? (
          <p>It will not be sent. This cannot be undone.</p>
        ) : (
          <p>
            It will be sent at {when ? new Date(when).toLocaleString() : '—'} instead of {formatTime(email.scheduled_at)}.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
