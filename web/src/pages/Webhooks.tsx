// Webhooks (src/webhooks/routes.ts): the account's endpoints, a new one with its events picked
// from the catalogue (GET /webhooks/event-types, so no list of types lives here), and an
// endpoint's page: its signing secret on request, rotated after a confirmation, enable and
// disable, edit, delete; its messages page by page, and a message's attempts with replay.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { type Answer, api, type Item, type List, type RequestBody } from '../api';
import { ConfirmDialog, CopyButton, ErrorMessage, formatTime, RecordError } from '../components';
import { forgetList, PagedTable, usePagedList } from '../list-table';
import { follow, navigate } from '../router';

type Webhook = Item<'/webhooks'>;
type WebhookDetail = Answer<'/webhooks/{id}'>;
type EventType = Item<'/webhooks/event-types'>;
type EventName = EventType['type'];
type WebhookMessage = Item<'/webhooks/{id}/events'>;
type WebhookMessageDetail = Answer<'/webhooks/{id}/events/{message_id}'>;
type Attempt = Item<'/webhooks/{id}/events/{message_id}/attempts'>;

// Deliveries move by themselves; a few seconds old is fresh enough for a person watching.
const REFRESH_MS = 3000;
const pagePath = (path: string, after: string | undefined) => `${path}?limit=20${after ? `&after=${encodeURIComponent(after)}` : ''}`;
const webhookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`;
const messagePath = (id: string, messageId: string) => `${webhookPath(id)}/events/${encodeURIComponent(messageId)}`;

function StatusBadge({ status }: { status: string }) {
  const tone =
    status === 'enabled' || status === 'success' ? 'status-verified' : status === 'failed' || status === 'disabled' ? 'status-failed' : 'status-pending';
  return <span className={`status ${tone}`}>{status}</span>;
}

export function WebhooksPage() {
  const list = usePagedList<Webhook>(['webhooks'], (after) => pagePath('/webhooks', after));
  return (
    <>
      <h1>Webhooks</h1>
      <p>Postline POSTs each event you pick to your endpoint, signed (Standard Webhooks), and retries until your endpoint answers 2xx.</p>
      <CreateWebhook />
      <h2>Endpoints</h2>
      <PagedTable
        paged={list}
        empty="No webhooks yet: add your endpoint above and pick the events it wants."
        columns={[
          {
            header: 'Endpoint',
            cell: (w) => (
              <a className="endpoint" href={`/dashboard/webhooks/${w.id}`} onClick={follow(`/webhooks/${w.id}`)}>
                {w.endpoint}
              </a>
            ),
          },
          { header: 'Events', cell: (w) => <EventList events={w.events} /> },
          { header: 'Status', cell: (w) => <StatusBadge status={w.status} /> },
          { header: 'Created', cell: (w) => formatTime(w.created_at) },
        ]}
      />
    </>
  );
}

function EventList({ events }: { events: string[] }) {
  return (
    <ul className="event-list">
      {events.map((e) => (
        <li key={e}>
          <code className="event-type">{e}</code>
        </li>
      ))}
    </ul>
  );
}

/** Checkboxes for the catalogue's event types, each with what it means. */
function EventPicker({ value, onChange }: { value: EventName[]; onChange: (events: EventName[]) => void }) {
  const id = useId();
  const types = useQuery({
    queryKey: ['webhook-event-types'],
    queryFn: () => api<List<EventType>>('GET', '/webhooks/event-types'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const all = types.data?.data ?? [];
  const toggle = (type: EventName, on: boolean) =>
    onChange(on ? all.map((t) => t.type).filter((t) => t === type || value.includes(t)) : value.filter((t) => t !== type));
  return (
    <fieldset className="event-picker">
      <legend>Events</legend>
      <ErrorMessage error={types.error} />
      <p className="row">
        <button type="button" className="secondary small" onClick={() => onChange(all.map((t) => t.type))}>
          Select all
        </button>
        <button type="button" className="secondary small" onClick={() => onChange([])}>
          Clear
        </button>
        <span className="hint" aria-live="polite">
          {value.length} of {all.length} selected
        </span>
      </p>
      <div className="event-options">
        {all.map((t, i) => (
          <div key={t.type} className="event-option">
            <label className="choice">
              <input type="checkbox" checked={value.includes(t.type)} onChange={(e) => toggle(t.type, e.target.checked)} aria-describedby={`${id}-${i}`} />
              <code className="event-type">{t.type}</code>
            </label>
            <span id={`${id}-${i}`} className="hint block">
              {t.description}
            </span>
          </div>
        ))}
      </div>
    </fieldset>
  );
}

function CreateWebhook() {
  const queryClient = useQueryClient();
  const [endpoint, setEndpoint] = useState('');
  const [events, setEvents] = useState<EventName[]>([]);
  const [noEvents, setNoEvents] = useState(false);
  const create = useMutation({
    mutationFn: () => api<Answer<'/webhooks', 'post'>>('POST', '/webhooks', { endpoint, events } satisfies RequestBody<'/webhooks', 'post'>),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['webhooks'] });
      navigate(`/webhooks/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNoEvents(events.length === 0);
    if (events.length > 0) create.mutate();
  };
  return (
    <form className="panel wide" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title">Add an endpoint</h2>
      <label htmlFor="webhook-endpoint">Endpoint URL</label>
      <input
        id="webhook-endpoint"
        type="url"
        required
        placeholder="https://example.com/webhooks/postline"
        value={endpoint}
        onChange={(e) => setEndpoint(e.target.value)}
      />
      <EventPicker value={events} onChange={setEvents} />
      {noEvents && events.length === 0 && (
        <p role="alert" className="error">
          Pick at least one event.
        </p>
      )}
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Adding…' : 'Add endpoint'}
      </button>
    </form>
  );
}

/** After a change the page refetches, and the list is forgotten: cached, it would show the old row until its refetch. */
function useWebhookChanged(id: string) {
  const queryClient = useQueryClient();
  return async () => {
    forgetList(queryClient, ['webhooks']);
    await queryClient.invalidateQueries({ queryKey: ['webhook', id] });
  };
}

export function WebhookPage({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const webhook = useQuery({ queryKey: ['webhook', id], queryFn: () => api<WebhookDetail>('GET', webhookPath(id)) });
  const [confirming, setConfirming] = useState<'rotate' | 'delete'>();
  const [editing, setEditing] = useState(false);
  const refresh = useWebhookChanged(id);
  const rotate = useMutation({
    mutationFn: () => api('POST', `${webhookPath(id)}/signing-secret/rotate`),
    onSuccess: refresh,
    onSettled: () => setConfirming(undefined),
  });
  const setStatus = useMutation({
    mutationFn: (status: WebhookDetail['status']) => api('PATCH', webhookPath(id), { status } satisfies RequestBody<'/webhooks/{id}', 'patch'>),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => api('DELETE', webhookPath(id)),
    onSuccess: async () => {
      forgetList(queryClient, ['webhooks']);
      navigate('/webhooks');
    },
    onSettled: () => setConfirming(undefined),
  });
  const w = webhook.data;
  return (
    <>
      <p>
        <a href="/dashboard/webhooks" onClick={follow('/webhooks')}>
          ← Webhooks
        </a>
      </p>
      <RecordError what="Webhook" query={webhook} />
      {w && (
        <>
          <h1 className="endpoint">{w.endpoint}</h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={w.status} />
            </dd>
            <dt>Created</dt>
            <dd>{formatTime(w.created_at)}</dd>
            <dt>Events</dt>
            <dd>
              <EventList events={w.events} />
            </dd>
          </dl>
          <div className="row">
            {w.status === 'enabled' ? (
              <button type="button" className="secondary" onClick={() => setStatus.mutate('disabled')} disabled={setStatus.isPending}>
                Disable
              </button>
            ) : (
              <button type="button" onClick={() => setStatus.mutate('enabled')} disabled={setStatus.isPending}>
                Enable
              </button>
            )}
            <button type="button" className="secondary" onClick={() => setEditing(!editing)} aria-expanded={editing}>
              Edit endpoint and events
            </button>
            <button type="button" className="danger" onClick={() => setConfirming('delete')}>
              Delete
            </button>
          </div>
          {w.status === 'disabled' && <p className="notice">Disabled: no new messages are made and none is sent until you enable it again.</p>}
          <ErrorMessage error={setStatus.error ?? remove.error ?? rotate.error} />
          {editing && <EditWebhook webhook={w} onDone={() => setEditing(false)} />}
          <SigningSecret webhook={w} onRotate={() => setConfirming('rotate')} />
          <Messages id={id} />
          {/* One dialog for both questions: ConfirmDialog's title has a fixed id, so two on a page would share a name. */}
          <ConfirmDialog
            open={confirming !== undefined}
            title={confirming === 'rotate' ? 'Rotate the signing secret?' : 'Delete this webhook?'}
            confirm={confirming === 'rotate' ? 'Rotate secret' : 'Delete webhook'}
            onConfirm={() => (confirming === 'rotate' ? rotate.mutate() : remove.mutate())}
            onClose={() => setConfirming(undefined)}
          >
            {confirming === 'rotate' ? (
              <p>A new secret signs from now on. For 24 hours the current one signs beside it, so your endpoint can switch without refusing webhooks.</p>
            ) : (
              <p>Postline stops sending to {w.endpoint} at once, and its messages and their attempts are deleted. This cannot be undone.</p>
            )}
          </ConfirmDialog>
        </>
      )}
    </>
  );
}

function EditWebhook({ webhook, onDone }: { webhook: WebhookDetail; onDone: () => void }) {
  const changed = useWebhookChanged(webhook.id);
  const [endpoint, setEndpoint] = useState(webhook.endpoint);
  const [events, setEvents] = useState<EventName[]>(webhook.events);
  const save = useMutation({
    mutationFn: () => api('PATCH', webhookPath(webhook.id), { endpoint, events } satisfies RequestBody<'/webhooks/{id}', 'patch'>),
    onSuccess: async () => {
      await changed();
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="panel wide" onSubmit={submit} aria-labelledby="edit-webhook-title">
      <h2 id="edit-webhook-title">Edit</h2>
      <label htmlFor="edit-endpoint">Endpoint URL</label>
      <input id="edit-endpoint" type="url" required value={endpoint} onChange={(e) => setEndpoint(e.target.value)} />
      <EventPicker value={events} onChange={setEvents} />
      <ErrorMessage error={save.error} />
      <div className="row">
        <button type="submit" disabled={save.isPending || events.length === 0}>
          Save changes
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The secret stays hidden until asked for: a screen may be shared or filmed. */
function SigningSecret({ webhook, onRotate }: { webhook: WebhookDetail; onRotate: () => void }) {
  const [shown, setShown] = useState(false);
  return (
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p className="hint">Your endpoint verifies each request's signature with it (the standardwebhooks library, or the SDK's webhooks.verify).</p>
      <div className="copy-row secret">
        {shown ? (
          <code className="secret-value" data-testid="signing-secret">
            {webhook.signing_secret}
          </code>
        ) : (
          <code className="secret-value">
            <span aria-hidden="true">whsec_••••••••••••••••••••••••</span>
            <span className="visually-hidden">Hidden</span>
          </code>
        )}
        <button type="button" className="secondary small" onClick={() => setShown(!shown)} aria-expanded={shown}>
          {shown ? 'Hide' : 'Reveal'}
        </button>
        {shown && <CopyButton value={webhook.signing_secret} label="Copy the signing secret" />}
        <button type="button" className="secondary small" onClick={onRotate}>
          Rotate
        </button>
      </div>
    </section>
  );
}

function Messages({ id }: { id: string }) {
  const messages = usePagedList<WebhookMessage>(['webhook-messages', id], (after) => pagePath(`${webhookPath(id)}/events`, after), REFRESH_MS);
  return (
    <section aria-labelledby="messages-title">
      <h2 id="messages-title">Messages</h2>
      <PagedTable
        paged={messages}
        empty="No messages yet: one is made for each event of the picked types from now on (send an email to see one)."
        columns={[
          {
            header: 'Event',
            cell: (m) => (
              <a
                href={`/dashboard/webhooks/${id}/messages/${m.id}`}
                onClick={follow(`/webhooks/${id}/messages/${m.id}`)}
                aria-label={`${m.type}, message ${m.id}`}
              >
                <code className="event-type">{m.type}</code>
              </a>
            ),
          },
          { header: 'Status', cell: (m) => <StatusBadge status={m.status} /> },
          { header: 'Attempts', cell: (m) => m.attempts, className: 'number' },
          { header: 'Next attempt', cell: (m) => (m.next_attempt_at ? formatTime(m.next_attempt_at) : '—') },
          { header: 'Created', cell: (m) => formatTime(m.created_at) },
        ]}
      />
    </section>
  );
}

export function WebhookMessagePage({ id, messageId }: { id: string; messageId: string }) {
  const queryClient = useQueryClient();
  const message = useQuery({
    queryKey: ['webhook-message', id, messageId],
    queryFn: () => api<WebhookMessageDetail>('GET', messagePath(id, messageId)),
    refetchInterval: REFRESH_MS,
  });
  const attempts = usePagedList<Attempt>(['webhook-attempts', id, messageId], (after) => pagePath(`${messagePath(id, messageId)}/attempts`, after), REFRESH_MS);
  const replay = useMutation({
    mutationFn: () => api('POST', `${messagePath(id, messageId)}/replay`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-message', id, messageId] }),
  });
  const m = message.data;
  return (
    <>
      <p>
        <a href={`/dashboard/webhooks/${id}`} onClick={follow(`/webhooks/${id}`)}>
          ← Webhook
        </a>
      </p>
      <RecordError what="Webhook message" query={message} />
      {m && (
        <>
          <h1>
            <code>{m.type}</code>
          </h1>
          <dl className="facts">
            <dt>Message</dt>
            <dd>
              <code>{m.id}</code>
            </dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={m.status} />
            </dd>
            <dt>Attempts</dt>
            <dd>{m.attempts}</dd>
            <dt>Next attempt</dt>
            <dd>{m.next_attempt_at ? formatTime(m.next_attempt_at) : '—'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(m.created_at)}</dd>
          </dl>
          <button type="button" onClick={() => replay.mutate()} disabled={replay.isPending}>
            Replay
          </button>
          <p className="hint">Sends it again with the same webhook-id, so your endpoint can tell it is the same event.</p>
          {replay.isSuccess && (
            <p className="notice" role="status">
              Replay queued: the attempt appears below in a moment.
            </p>
          )}
          <ErrorMessage error={replay.error} />
        </>
      )}
      <h2>Attempts</h2>
      <PagedTable
        paged={attempts}
        empty="Not attempted yet."
        rowHeaders={false}
        columns={[
          { header: 'Sent', cell: (a) => formatTime(a.sent_at) },
          {
            header: 'Response code',
            cell: (a) => (
              <span className={`status ${a.http_status_code >= 200 && a.http_status_code < 300 ? 'status-verified' : 'status-failed'}`}>
                {a.http_status_code === 0 ? 'no response' : a.http_status_code}
              </span>
            ),
          },
          { header: 'Duration', cell: (a) => `${a.latency_ms} ms`, className: 'number' },
          { header: 'Response', cell: (a) => <code className="reply-text">{a.response || '(empty)'}</code> },
        ]}
      />
      {m && (
        <>
          <h2>Payload</h2>
          <pre className="mail-text">{JSON.stringify(m.payload, null, 2)}</pre>
        </>
      )}
    </>
  );
}
