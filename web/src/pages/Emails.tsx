// Emails (GET /emails with its filters, src/emails/): the list, searched and filtered as one
// types, its filters and page in the URL's query (so Back returns to them), with how many match;
// and an email's page: its facts, the share link, events on a timeline, every delivery attempt,
// what came back to its return path (email-reports.tsx), the message in tabs (email-message.tsx:
// preview, plain text, source, headers), the raw download, attachments; a scheduled email
// rescheduled or canceled.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { type Answer, api, everyValue, type Item, type List, type RequestBody } from '../api';
import { Addresses, ConfirmDialog, ErrorMessage, formatTime, RecordError } from '../components';
import { ListTable, PagedTable, ShowMore, urlCursor, usePagedList, useListReadOn } from '../list-table';
import { follow, navigate } from '../router';
import { MessageTabs, ShareLink } from './email-message';
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
  { name: 'to', label: 'Recipient contains', type: 'text' },
  { name: 'from', label: 'From contains', type: 'text' },
  { name: 'subject', label: 'Subject contains', type: 'text' },
  { name: 'tag', label: 'Tag (name or name:value)', type: 'text' },
  { name: 'created_after', label: 'Created from (date)', type: 'date' },
  { name: 'created_before', label: 'Created before (date)', type: 'date' },
] as const;
const FILTER_NAMES = ['search', 'last_event', ...FILTERS.map((f) => f.name)];
/** The filters typed into: typing on in the same one replaces its history entry rather than adding one. */
const TYPED = new Set(['search', ...FILTERS.filter((f) => f.type === 'text').map((f) => f.name)]);
/** How long typing rests before the list follows it. */
const TYPING_MS = 300;
const PAGE_SIZE = 50;

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

type Filters = Record<string, string>;
const filtersIn = (search: string): Filters => {
  const params = new URLSearchParams(search);
  return Object.fromEntries(FILTER_NAMES.map((name) => [name, params.get(name) ?? '']));
};
/** The filters set, trimmed, in FILTER_NAMES' order: the list's URL and its API query. */
function queryOf(filters: Filters): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    const value = filters[name]?.trim();
    if (value) query.set(name, value);
  }
  return query;
}
function go(query: URLSearchParams, options: { replace?: boolean } = {}) {
  navigate(query.size ? `/emails?${query}` : '/emails', options);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/**
 * The list, filtered as one types (TYPING_MS after the last key), its filters and page in the
 * URL: Back from an email returns to the same page of the same list, and Back from a filter to
 * the one before it (a pause in typing in the same field is not a filter of its own).
 */
export function EmailsPage() {
  const search = useSearch();
  const applied = queryOf(filtersIn(search)).toString();
  const [draft, setDraft] = useState(() => filtersIn(search));
  // The filters this page last put in the URL: others (Back, Forward) are shown in the form.
  const written = useRef(applied);
  // The field typed into for the current history entry, if the entry came from typing.
  const typing = useRef<string | null>(null);
  useEffect(() => {
    if (applied === written.current) return;
    written.current = applied;
    typing.current = null;
    setDraft(filtersIn(window.location.search));
  }, [applied]);
  const wanted = queryOf(draft).toString();
  useEffect(() => {
    if (wanted === written.current) return;
    const timer = setTimeout(() => {
      const before = new URLSearchParams(written.current);
      const after = new URLSearchParams(wanted);
      const changed = FILTER_NAMES.filter((name) => before.get(name) !== after.get(name));
      const field = changed.length === 1 && TYPED.has(changed[0]!) ? changed[0]! : null;
      const replace = field !== null && field === typing.current;
      typing.current = field;
      written.current = wanted;
      go(after, { replace });
    }, TYPING_MS);
    return () => clearTimeout(timer);
  }, [wanted]);
  const clear = () => {
    written.current = '';
    typing.current = null;
    setDraft(filtersIn(''));
    go(new URLSearchParams());
  };

  const cursor = urlCursor(search, (query) => {
    typing.current = null;
    go(query);
  });
  const query = new URLSearchParams(applied);
  query.set('limit', String(PAGE_SIZE));
  query.set('include_total', 'true');
  const list = usePagedList<EmailSummary>(
    ['emails', query.toString()],
    (after, before) => `/emails?${query}${after ? `&after=${after}` : ''}${before ? `&before=${before}` : ''}`,
    5000,
    { cursor, keepPrevious: true },
  );
  const filtered = applied !== '';
  const set = (name: string) => (event: { target: { value: string } }) => setDraft((d) => ({ ...d, [name]: event.target.value }));
  return (
    <>
      <h1>Emails</h1>
      <p>Every email sent from this account, newest first. Open one to see what happened to it.</p>
      <form className="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filter emails">
        <div className="filter-search">
          <label htmlFor="filter-search">Search</label>
          <input
            id="filter-search"
            type="search"
            placeholder="An email's id, or part of its subject or an address"
            value={draft.search}
            onChange={set('search')}
          />
        </div>
        <div>
          <label htmlFor="filter-last_event">Last event</label>
          <select id="filter-last_event" value={draft.last_event} onChange={set('last_event')}>
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
            <input id={`filter-${f.name}`} type={f.type} value={draft[f.name]} onChange={set(f.name)} />
          </div>
        ))}
        {(filtered || wanted !== '') && (
          <div className="filter-actions">
            <button type="button" className="secondary" onClick={clear}>
              Clear filters
            </button>
          </div>
        )}
      </form>
      <ListCount list={list.list.data} filtered={filtered} page={cursor.page} updating={list.list.isPlaceholderData} />
      <PagedTable
        paged={list}
        className="emails"
        empty={
          filtered
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
          { header: 'To', cell: (e) => <Addresses list={e.to} /> },
          { header: 'From', cell: (e) => <Addresses list={[e.from]} /> },
          { header: 'Last event', cell: (e) => <Status value={e.last_event} /> },
          { header: 'Created', cell: (e) => (e.scheduled_at && e.last_event === 'scheduled' ? `for ${formatTime(e.scheduled_at)}` : formatTime(e.created_at)) },
        ]}
      />
    </>
  );
}

/**
 * How many emails the list holds (GET /emails's include_total: counted up to a cap, "1,000+"
 * past it) and which page of how many this is; said to screen readers when it changes.
 */
function ListCount({ list, filtered, page, updating }: { list: Answer<'/emails'> | undefined; filtered: boolean; page: number; updating: boolean }) {
  let text = '';
  if (updating) text = 'Searching…';
  else if (list?.total !== undefined) {
    const count = `${list.total.toLocaleString()}${list.total_capped ? '+' : ''}`;
    const emails = list.total === 1 && !list.total_capped ? 'email' : 'emails';
    const pages = list.total_capped ? null : Math.max(1, Math.ceil(list.total / PAGE_SIZE));
    text = `${count} ${filtered ? `matching ${emails}` : emails}${pages && pages > 1 ? ` · page ${page} of ${pages}` : ''}`;
  }
  return (
    <p className="list-count" role="status">
      {text}
    </p>
  );
}

export function EmailPage({ id }: { id: string }) {
  const path = `/emails/${encodeURIComponent(id)}`;
  const email = useQuery({ queryKey: ['email', id], queryFn: () => api<Email>('GET', path), refetchInterval: 5000 });
  // Oldest first, read on with "Show more": an email to a large list has many of each.
  const events = useListReadOn<EmailEvent>(['email-events', id], (after) => `${path}/events${after ? `?after=${after}` : ''}`, 5000);
  const attempts = useListReadOn<Attempt>(['email-attempts', id], (after) => `${path}/attempts${after ? `?after=${after}` : ''}`, 5000);
  const attachments = useQuery({ queryKey: ['email-attachments', id], queryFn: () => api<List<Attachment>>('GET', `${path}/attachments`) });
  // The message is composed at the first attempt, or at accept when it has attachments: a scheduled
  // email (or one canceled before its time) without any has none yet, and is not asked for (a 404).
  const unsent = email.data?.last_event === 'scheduled' || email.data?.last_event === 'canceled';
  const noMessage = unsent && attachments.data?.data.length === 0;
  // HEAD: whether the message exists yet, without its bytes.
  const raw = useQuery({
    queryKey: ['email-raw', id, email.data?.last_event],
    queryFn: async () => (await fetch(`${path}/raw`, { method: 'HEAD', credentials: 'same-origin' })).ok,
    enabled: !!email.data && !!attachments.data && !noMessage,
  });
  const e = email.data;
  return (
    <>
      <p>
        <a href="/dashboard/emails" onClick={follow('/emails')}>
          ← Emails
        </a>
      </p>
      <RecordError what="Email" query={email} />
      {e && (
        <>
          <h1>{e.subject || '(no subject)'}</h1>
          <dl className="facts">
            <dt>Last event</dt>
            <dd>
              <Status value={e.last_event} />
            </dd>
            <dt>From</dt>
            <dd>
              <Addresses list={[e.from]} />
            </dd>
            <dt>To</dt>
            <dd>
              <Addresses list={e.to} />
            </dd>
            {e.cc && (
              <>
                <dt>Cc</dt>
                <dd>
                  <Addresses list={e.cc} />
                </dd>
              </>
            )}
            {e.bcc && (
              <>
                <dt>Bcc</dt>
                <dd>
                  <Addresses list={e.bcc} />
                </dd>
              </>
            )}
            {e.reply_to && (
              <>
                <dt>Reply to</dt>
                <dd>
                  <Addresses list={e.reply_to} />
                </dd>
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
          <ShareLink id={e.id} />
          <h2>Timeline</h2>
          <ErrorMessage error={events.list.error} />
          {events.rows && <Timeline events={events.rows} />}
          <ShowMore list={events.list} what="events" />
          <h2>Delivery attempts</h2>
          <ErrorMessage error={attempts.list.error} />
          {attempts.rows && <Attempts attempts={attempts.rows} />}
          <ShowMore list={attempts.list} what="attempts" />
          <ReturnPathReports path={path} />
          <MessageTabs path={path} email={e} rawAvailable={noMessage ? false : raw.data} />
          <h2>Raw message</h2>
          {raw.data ? (
            <p>
              {/* A plain link: a GET needs only the session cookie, and the answer is an attachment. */}
              <a href={`${path}/raw`} download={`${e.id}.eml`}>
                Download the raw message (.eml)
              </a>
            </p>
          ) : e.last_event === 'canceled' && noMessage ? (
            <p className="hint">It was canceled before its first delivery attempt, where its message would have been composed: there is none.</p>
          ) : (
            (raw.data === false || noMessage) && (
              <p className="hint">The message is composed and signed at its first delivery attempt; it can be downloaded from then on.</p>
            )
          )}
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
          {ev.data.to && (
            <span className="hint">
              {' · '}
              <Addresses list={ev.data.to} />
            </span>
          )}
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
      cards
      rows={attempts}
      rowHeaders={false}
      columns={[
        { header: 'Time', cell: (a) => formatTime(a.attempted_at) },
        { header: 'Recipient', cell: (a) => <Addresses list={[a.recipient]} /> },
        { header: 'MX host', cell: (a) => (a.mx_host ? <Addresses list={[a.mx_host]} /> : '—') },
        { header: 'Reply', cell: (a) => <code className="smtp-reply">{a.response}</code> },
        { header: 'Outcome', cell: (a) => <Status value={a.outcome} /> },
        {
          header: 'TLS',
          cell: (a) =>
            a.tls ? (
              // One element: at phone width a card's value (table.cards) is one grid item.
              <span>
                {a.tls.protocol ?? 'plain text'}
                <span className="hint block">{a.tls.requirement}</span>
              </span>
            ) : (
              '—'
            ),
        },
      ]}
    />
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
