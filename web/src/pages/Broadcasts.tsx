// Broadcasts (src/broadcasts/): the list with each one's status, and a broadcast's page: its
// content, send now or at a time the person writes ("tomorrow at 9am": POST /send parses it,
// the page does not), cancel, duplicate, delete; its figures (GET /broadcasts/:id/stats),
// recipients by outcome and clicked links. Composing is BroadcastCompose.tsx.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, api, everyValue, type Item, type Query } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime, RecordError } from '../components';
import { forgetList, type Column, PagedTable, usePagedList } from '../list-table';
import { MailBody } from '../mail-viewer';
import { follow, navigate } from '../router';
import { qs } from './audience-common';
import { type Broadcast, BroadcastComposePage } from './BroadcastCompose';

type BroadcastSummary = Item<'/broadcasts'>;
/** What the page says of a broadcast: Resend's `queued` is scheduled or sending (stateOf). */
type BroadcastState = Exclude<Broadcast['status'], 'queued'> | 'scheduled' | 'sending';

/** A queued broadcast is scheduled while its time is ahead, and being sent once it has come. */
function stateOf(b: Pick<Broadcast, 'status' | 'scheduled_at'>): BroadcastState {
  if (b.status !== 'queued') return b.status;
  const at = b.scheduled_at ? Date.parse(b.scheduled_at.replace(' ', 'T').replace(/\+00$/, 'Z')) : Number.NaN;
  return at > Date.now() ? 'scheduled' : 'sending';
}

type Stats = Answer<'/broadcasts/{id}/stats'>;
const FIGURES = [
  'recipients',
  'delivered',
  'opened',
  'clicked',
  'unsubscribed',
  'bounced',
  'complained',
  'suppressed',
] as const satisfies readonly (keyof Stats)[];
type RecipientType = Query<'/broadcasts/{id}/recipients'>['type'];
const RECIPIENT_TYPES = everyValue<RecipientType>({
  sent: true,
  delivered: true,
  opened: true,
  clicked: true,
  bounced: true,
  complained: true,
  unsubscribed: true,
  suppressed: true,
});
type Recipient = Item<'/broadcasts/{id}/recipients'>;
type ClickedLink = Item<'/broadcasts/{id}/clicked-links'>;

/** /broadcasts and everything below it. */
export function BroadcastsPage({ path }: { path: string }) {
  const [, , id, action] = path.split('/');
  if (id === 'new') return <BroadcastComposePage />;
  if (id && action === 'edit') return <BroadcastComposePage id={decodeURIComponent(id)} />;
  if (id) return <BroadcastPage id={decodeURIComponent(id)} />;
  return <BroadcastList />;
}

function StatusBadge({ status }: { status: BroadcastState }) {
  const tone = { draft: '', scheduled: 'status-pending', sending: 'status-pending', sent: 'status-verified', canceled: 'status-failed' }[status];
  return <span className={`status ${tone}`}>{status}</span>;
}

function BroadcastList() {
  const list = usePagedList<BroadcastSummary>(
    ['broadcasts'],
    (after) => `/broadcasts${qs({ limit: 25, after })}`,
    (query) => (query.state.data?.data.some((b) => stateOf(b) === 'sending') ? 3000 : false),
  );
  return (
    <>
      <h1>Broadcasts</h1>
      <p>One email to every contact of a segment, sent now or at a time you choose.</p>
      <p>
        <a className="button-link" href="/dashboard/broadcasts/new" onClick={follow('/broadcasts/new')}>
          New broadcast
        </a>
      </p>
      <PagedTable
        paged={list}
        empty="No broadcasts yet: write one with “New broadcast”. It goes to a segment of your contacts (Audience)."
        columns={[
          {
            header: 'Name',
            cell: (b) => (
              <a href={`/dashboard/broadcasts/${b.id}`} onClick={follow(`/broadcasts/${b.id}`)}>
                {b.name || '(no name)'}
              </a>
            ),
          },
          { header: 'Status', cell: (b) => <StatusBadge status={stateOf(b)} /> },
          { header: 'Created', cell: (b) => formatTime(b.created_at) },
          { header: 'Scheduled for', cell: (b) => (b.scheduled_at ? formatTime(b.scheduled_at) : '—') },
          { header: 'Sent', cell: (b) => (b.sent_at ? formatTime(b.sent_at) : '—') },
        ]}
      />
    </>
  );
}

function BroadcastPage({ id }: { id: string }) {
  const path = `/broadcasts/${encodeURIComponent(id)}`;
  const broadcast = useQuery({
    queryKey: ['broadcast', id],
    queryFn: () => api<Broadcast>('GET', path),
    refetchInterval: (query) => (query.state.data?.status === 'queued' ? 3000 : false),
  });
  const b = broadcast.data;
  const segment = useQuery({
    queryKey: ['segment', b?.segment_id],
    queryFn: () => api<Answer<'/segments/{id}'>>('GET', `/segments/${b!.segment_id}`),
    enabled: !!b?.segment_id,
  });
  const topic = useQuery({
    queryKey: ['topic', b?.topic_id],
    queryFn: () => api<Answer<'/topics/{id}'>>('GET', `/topics/${b!.topic_id}`),
    enabled: !!b?.topic_id,
  });
  return (
    <>
      <p>
        <a href="/dashboard/broadcasts" onClick={follow('/broadcasts')}>
          ← Broadcasts
        </a>
      </p>
      <RecordError what="Broadcast" query={broadcast} />
      {b && (
        <>
          <h1>{b.name || b.subject || '(no name)'}</h1>
          <p>
            <StatusBadge status={stateOf(b)} />
            {stateOf(b) === 'scheduled' && b.scheduled_at && <> for {formatTime(b.scheduled_at)}</>}
          </p>
          <dl className="facts">
            <dt>From</dt>
            <dd>{b.from ?? '—'}</dd>
            <dt>Subject</dt>
            <dd>{b.subject ?? '—'}</dd>
            {b.reply_to && (
              <>
                <dt>Reply-to</dt>
                <dd>{b.reply_to.join(', ')}</dd>
              </>
            )}
            <dt>Segment</dt>
            <dd>
              {b.segment_id ? (
                segment.data ? (
                  <a href={`/dashboard/audience/segments/${b.segment_id}`} onClick={follow(`/audience/segments/${b.segment_id}`)}>
                    {segment.data.name}
                  </a>
                ) : segment.error ? (
                  '(deleted)'
                ) : (
                  '…'
                )
              ) : (
                '—'
              )}
            </dd>
            <dt>Topic</dt>
            <dd>{b.topic_id ? (topic.data?.name ?? (topic.error ? '(deleted)' : '…')) : 'none'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(b.created_at)}</dd>
            {b.sent_at && (
              <>
                <dt>Sent</dt>
                <dd>{formatTime(b.sent_at)}</dd>
              </>
            )}
          </dl>
          <Actions broadcast={b} path={path} />
          {/* Figures once it has started going out (a scheduled or canceled one may never have). */}
          {b.sent_at && <Figures id={id} path={path} />}
          {b.sent_at && <Recipients id={id} path={path} />}
          {b.sent_at && <ClickedLinks id={id} path={path} />}
          {/* Without a text of its own, each email's text part is made from its HTML at send (src/emails/compose.ts). */}
          <MailBody html={b.html} text={b.text} noText="No text was written: each email's text part is made from the HTML when it is sent." />
        </>
      )}
    </>
  );
}

/** What can be done in the broadcast's state: edit, send or schedule, cancel, duplicate, delete. */
function Actions({ broadcast: b, path }: { broadcast: Broadcast; path: string }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<'cancel' | 'delete'>();
  const refresh = () => {
    forgetList(queryClient, ['broadcasts']);
    void queryClient.invalidateQueries({ queryKey: ['broadcast', b.id] });
  };
  const cancel = useMutation({ mutationFn: () => api('POST', `${path}/cancel`), onSuccess: refresh });
  const duplicate = useMutation({
    mutationFn: () => api<Answer<'/broadcasts/{id}/duplicate', 'post'>>('POST', `${path}/duplicate`),
    onSuccess: ({ id }) => {
      refresh();
      navigate(`/broadcasts/${id}/edit`);
    },
  });
  const remove = useMutation({
    mutationFn: () => api('DELETE', path),
    onSuccess: () => {
      forgetList(queryClient, ['broadcasts']);
      navigate('/broadcasts');
    },
  });
  const unsent = b.status === 'draft' || stateOf(b) === 'scheduled';
  return (
    <section aria-labelledby="actions-title">
      <h2 id="actions-title" className="visually-hidden">
        Actions
      </h2>
      {unsent && <SendForm broadcast={b} path={path} onSent={refresh} />}
      <div className="row">
        {unsent && (
          <a className="button-link secondary" href={`/dashboard/broadcasts/${b.id}/edit`} onClick={follow(`/broadcasts/${b.id}/edit`)}>
            Edit
          </a>
        )}
        {(stateOf(b) === 'scheduled' || stateOf(b) === 'sending') && (
          <button type="button" className="danger" onClick={() => setConfirming('cancel')}>
            {stateOf(b) === 'scheduled' ? 'Cancel the scheduled send' : 'Stop sending'}
          </button>
        )}
        <button type="button" className="secondary" onClick={() => duplicate.mutate()} disabled={duplicate.isPending}>
          Duplicate
        </button>
        {b.status === 'draft' && (
          <button type="button" className="danger" onClick={() => setConfirming('delete')}>
            Delete
          </button>
        )}
      </div>
      <ErrorMessage error={cancel.error ?? duplicate.error ?? remove.error} />
      <ConfirmDialog
        open={confirming === 'cancel'}
        title={stateOf(b) === 'scheduled' ? 'Cancel this broadcast?' : 'Stop sending this broadcast?'}
        confirm={stateOf(b) === 'scheduled' ? 'Cancel the send' : 'Stop sending'}
        onConfirm={() => {
          setConfirming(undefined);
          cancel.mutate();
        }}
        onClose={() => setConfirming(undefined)}
      >
        <p>
          {stateOf(b) === 'scheduled'
            ? 'Nothing is sent. Duplicate it to send it another time.'
            : 'No further contacts get it; emails already queued still go out.'}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'delete'}
        title="Delete this draft?"
        confirm="Delete"
        onConfirm={() => {
          setConfirming(undefined);
          remove.mutate();
        }}
        onClose={() => setConfirming(undefined)}
      >
        <p>The draft is gone for good.</p>
      </ConfirmDialog>
    </section>
  );
}

/**
 * Send now, or at a time as the person says it. The text goes to POST /send as it is typed:
 * the server reads ISO 8601 and natural language alike, and says when it cannot.
 */
function SendForm({ broadcast: b, path, onSent }: { broadcast: Broadcast; path: string; onSent: () => void }) {
  const [when, setWhen] = useState<'now' | 'later'>('now');
  const [at, setAt] = useState('');
  const [confirming, setConfirming] = useState(false);
  const send = useMutation({
    mutationFn: () => api('POST', `${path}/send`, when === 'later' ? { scheduled_at: at.trim() } : {}),
    onSuccess: onSent,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setConfirming(true);
  };
  const label = stateOf(b) === 'scheduled' ? 'Send or reschedule' : 'Send';
  return (
    <form className="panel stacked" onSubmit={submit} aria-labelledby="send-title">
      <h2 id="send-title">{label}</h2>
      <fieldset>
        <legend>When</legend>
        <label className="choice">
          <input type="radio" name="when" checked={when === 'now'} onChange={() => setWhen('now')} />
          Now
        </label>
        <label className="choice">
          <input type="radio" name="when" checked={when === 'later'} onChange={() => setWhen('later')} />
          At a time
        </label>
      </fieldset>
      {when === 'later' && (
        <>
          <label htmlFor="send-at">Send at</label>
          <input id="send-at" required placeholder="tomorrow at 9am" value={at} onChange={(e) => setAt(e.target.value)} aria-describedby="send-at-hint" />
          <p className="hint" id="send-at-hint">
            Plain words (“tomorrow at 9am”, “in 2 hours”, “Friday at 3pm ET”) or ISO 8601; times without a zone are UTC; at most 30 days ahead.
          </p>
        </>
      )}
      <button type="submit" disabled={send.isPending}>
        {when === 'now' ? 'Send now…' : 'Schedule…'}
      </button>
      <ErrorMessage error={send.error} />
      <ConfirmDialog
        open={confirming}
        title={when === 'now' ? 'Send this broadcast now?' : `Schedule this broadcast for “${at.trim()}”?`}
        confirm={when === 'now' ? 'Send now' : 'Schedule'}
        onConfirm={() => {
          setConfirming(false);
          send.mutate();
        }}
        onClose={() => setConfirming(false)}
      >
        <AudienceCount path={path} open={confirming} later={when === 'later'} />
        <p className="hint">Every contact of its segment{b.topic_id ? ' subscribed to its topic' : ''} who has not unsubscribed gets it.</p>
      </ConfirmDialog>
    </form>
  );
}

type RecipientsCount = Answer<'/broadcasts/{id}/recipients-count'>;

const contacts = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'contact' : 'contacts'}`;

/**
 * How many contacts the broadcast goes to (GET /broadcasts/:id/recipients-count, counted with
 * the fan-out's own conditions), read afresh each time the send confirmation opens.
 */
function AudienceCount({ path, open, later }: { path: string; open: boolean; later: boolean }) {
  const count = useQuery({
    queryKey: ['broadcast', path, 'recipients-count'],
    queryFn: () => api<RecipientsCount>('GET', `${path}/recipients-count`),
    enabled: open,
    staleTime: 0,
    refetchOnMount: 'always',
  });
  if (count.error) return <ErrorMessage error={count.error} />;
  const c = count.data;
  if (!c || (open && count.isFetching)) return <p className="loading">Counting its recipients…</p>;
  const out = [
    c.unsubscribed && `${c.unsubscribed.toLocaleString()} unsubscribed`,
    c.not_subscribed_to_topic && `${c.not_subscribed_to_topic.toLocaleString()} not subscribed to its topic`,
    c.suppressed && `${c.suppressed.toLocaleString()} suppressed`,
  ].filter((part): part is string => Boolean(part));
  const total = c.unsubscribed + c.not_subscribed_to_topic + c.suppressed;
  const listed = out.length === 1 ? out[0] : `${out.slice(0, -1).join(', ')} and ${out.at(-1)}`;
  const leftOut = total === 0 ? '' : ` (${listed} ${total === 1 ? 'is' : 'are'} left out)`;
  return (
    <p>
      {later ? 'As its segment is now, it will go to ' : 'It will go to '}
      <strong>{contacts(c.recipients)}</strong>
      {leftOut}.
    </p>
  );
}

function Figures({ id, path }: { id: string; path: string }) {
  const stats = useQuery({
    queryKey: ['broadcast', id, 'stats'],
    queryFn: () => api<Stats>('GET', `${path}/stats`),
    // Deliveries, opens and clicks keep coming after the fan-out is done.
    refetchInterval: 3000,
  });
  const s = stats.data;
  return (
    <section aria-labelledby="figures-title">
      <h2 id="figures-title">Figures</h2>
      <ErrorMessage error={stats.error} />
      {s && (
        <dl className="figures">
          {FIGURES.map((f) => (
            <div key={f}>
              <dt>{f}</dt>
              <dd>
                {s[f].toLocaleString()}
                {f !== 'recipients' && s.sent > 0 && f !== 'suppressed' && <span className="hint block">{Math.round((s[f] / s.sent) * 100)} %</span>}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

function Recipients({ id, path }: { id: string; path: string }) {
  const [type, setType] = useState<RecipientType>('sent');
  return (
    <section aria-labelledby="recipients-title">
      <h2 id="recipients-title">Recipients</h2>
      <label htmlFor="recipient-type">Show</label>
      <select id="recipient-type" value={type} onChange={(e) => setType(e.target.value as RecipientType)}>
        {RECIPIENT_TYPES.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      {/* Keyed by the type, so another type starts again at page 1. */}
      <RecipientList key={type} id={id} path={path} type={type} />
    </section>
  );
}

function RecipientList({ id, path, type }: { id: string; path: string; type: RecipientType }) {
  const list = usePagedList<Recipient>(['broadcast', id, 'recipients', type], (after) => `${path}/recipients${qs({ type, limit: 25, after })}`, 5000);
  const columns: Column<Recipient>[] = [
    {
      header: 'Address',
      cell: (r) =>
        r.contact_id ? (
          <a href={`/dashboard/audience/contacts/${r.contact_id}`} onClick={follow(`/audience/contacts/${r.contact_id}`)}>
            {r.email}
          </a>
        ) : (
          r.email
        ),
    },
  ];
  if (type === 'opened' || type === 'clicked') columns.push({ header: 'Times', cell: (r) => r.count, className: 'number' });
  if (type === 'clicked')
    columns.push({
      header: 'Links',
      className: 'link-cell',
      cell: (r) =>
        r.clicked_links?.map((l) => (
          <span key={l.url} className="block">
            {l.url} ({l.clicks})
          </span>
        )),
    });
  if (type === 'bounced') columns.push({ header: 'Bounce', cell: (r) => r.bounce_type });
  return <PagedTable paged={list} caption={`Recipients ${type}`} empty={<p className="hint">No recipient is {type} yet.</p>} columns={columns} />;
}

function ClickedLinks({ id, path }: { id: string; path: string }) {
  const list = usePagedList<ClickedLink>(['broadcast', id, 'clicked-links'], (after) => `${path}/clicked-links${qs({ limit: 25, after })}`, 5000);
  return (
    <section aria-labelledby="links-title">
      <h2 id="links-title">Clicked links</h2>
      <PagedTable
        paged={list}
        empty={<p className="hint">No clicks yet (links are counted when click tracking is on for the sending domain).</p>}
        columns={[
          { header: 'Link', cell: (l) => l.url, className: 'link-cell' },
          { header: 'Clicks', cell: (l) => l.clicks, className: 'number' },
          { header: 'Recipients who clicked', cell: (l) => l.unique_clicks, className: 'number' },
        ]}
      />
    </section>
  );
}
