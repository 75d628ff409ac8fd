// The queue (GET /queue, src/queue/routes.ts): what waits per destination and why, one
// destination's messages, and the repairs an operator makes here: retry now, pause with a
// reason, resume; per email, retry or give up with a reason. Under them, what the DNS blocklists
// said of the outbound addresses (domain-blocklists.tsx).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { type Answer, api, type RequestBody } from '../api';
import { ErrorMessage, formatAge, formatTime } from '../components';
import { ListTable, PagedTable, usePagedList } from '../list-table';
import { follow } from '../router';
import { BlocklistChecks } from './domain-blocklists';

type QueueSummary = Answer<'/queue'>;
type State = keyof QueueSummary['counts'];
type Reply = NonNullable<QueueSummary['destinations'][number]['last_reply']>;
type Pause = QueueSummary['pauses'][number];
type DestinationList = Answer<'/queue/destinations/{destination}'>;
type QueuedMessage = DestinationList['data'][number];
/** A recipient domain's MTA-STS policy as the nodes last found it (GET /queue/destinations/:d's `mta_sts`). */
type StsPolicyView = DestinationList['mta_sts'][number];

const STATE_HEADERS: Record<State, string> = {
  due: 'Due',
  in_flight: 'In flight',
  deferred: 'Deferred',
  scheduled: 'Scheduled',
  paused: 'Paused',
};
const STATES = Object.keys(STATE_HEADERS) as State[];

// The queue moves by itself; a few seconds old is fresh enough for a person watching it.
const REFRESH_MS = 3000;
const useSummary = () => useQuery({ queryKey: ['queue'], queryFn: () => api<QueueSummary>('GET', '/queue'), refetchInterval: REFRESH_MS });
const destinationPath = (dest: string) => `/queue/destinations/${encodeURIComponent(dest)}`;

export function QueuePage() {
  const summary = useSummary();
  const data = summary.data;
  return (
    <>
      <h1>Queue</h1>
      <p>Mail not delivered yet, by recipient domain. Open a destination to see its messages.</p>
      <ErrorMessage error={summary.error} />
      {data && data.total === 0 && data.pauses.length === 0 && (
        <p className="notice">The queue is empty: everything sent so far has been delivered or has failed.</p>
      )}
      {data && data.total > 0 && (
        <p>
          {data.total} waiting: {STATES.map((s) => `${data.counts[s]} ${s.replace('_', ' ')}`).join(', ')}. Oldest {formatAge(data.oldest_age_seconds)}.
        </p>
      )}
      {data && data.destinations.length > 0 && (
        <ListTable
          className="queue"
          rows={data.destinations}
          rowKey={(d) => d.domain}
          columns={[
            {
              header: 'Destination',
              cell: (d) => (
                <a href={`/dashboard/queue/${encodeURIComponent(d.domain)}`} onClick={follow(`/queue/${encodeURIComponent(d.domain)}`)}>
                  {d.domain}
                </a>
              ),
            },
            {
              header: 'Provider',
              cell: (d) =>
                d.provider ? (
                  <a href={`/dashboard/queue/${encodeURIComponent(d.provider)}`} onClick={follow(`/queue/${encodeURIComponent(d.provider)}`)}>
                    {d.provider}
                  </a>
                ) : (
                  '—'
                ),
            },
            ...STATES.map((s) => ({ header: STATE_HEADERS[s], cell: (d: QueueSummary['destinations'][number]) => d.counts[s], className: 'number' })),
            { header: 'Oldest', cell: (d) => formatAge(d.oldest_age_seconds) },
            { header: 'Last reply', cell: (d) => <LastReply reply={d.last_reply} /> },
            { header: 'Actions', hideHeader: true, cell: (d) => <Actions destination={d.domain} pause={d.paused} compact /> },
          ]}
        />
      )}
      {data?.has_more && (
        <p className="hint">
          The {data.destinations.length} largest of {data.destinations_total} destinations.
        </p>
      )}
      {data && data.pauses.length > 0 && (
        <>
          <h2>Paused</h2>
          <ul className="pauses">
            {data.pauses.map((p) => (
              <li key={`${p.destination} ${p.sending_domain ?? ''}`}>
                <strong>{p.destination}</strong> ({p.kind}
                {p.sending_domain && `, mail from ${p.sending_domain}`}) since {formatTime(p.since)}: {p.reason}{' '}
                <Actions destination={p.destination} pause={p} compact />
              </li>
            ))}
          </ul>
        </>
      )}
      {data && data.shaping.length > 0 && (
        <>
          <h2>Sending rates</h2>
          <p className="hint">
            Destinations Postline sends to at a limited rate: its configured limit, or less after the destination answered 421 or “rate limited” (the rate then
            recovers step by step after a quiet minute). Mail over the rate waits for its turn.
          </p>
          <ListTable
            caption="Sending rates"
            rows={data.shaping}
            rowKey={(r) => r.destination}
            columns={[
              { header: 'Destination', cell: (r) => r.destination },
              { header: 'State', cell: (r) => (r.state === 'throttled' ? 'slowed down' : r.state === 'limited' ? 'at its limit' : 'not limited') },
              { header: 'Rate a minute', cell: (r) => r.rate_per_minute ?? 'none', className: 'number' },
              { header: 'Limit a minute', cell: (r) => r.limit_per_minute ?? 'none', className: 'number' },
              { header: 'Sent last minute', cell: (r) => r.sent_last_minute, className: 'number' },
              {
                header: 'Last slow-down reply',
                cell: (r) => (r.last_signal ? `${formatTime(r.last_signal.at)}: ${r.last_signal.reply}` : '—'),
              },
            ]}
          />
        </>
      )}
      {data && (
        <section className="panel blocklists-panel" aria-labelledby="queue-blocklists-title">
          <h2 id="queue-blocklists-title">Blocklists</h2>
          <p className="hint">
            What the DNS blocklists said of the outbound addresses at their last check. A listed address's mail may be refused or filed as spam.
          </p>
          <BlocklistChecks
            checks={data.blocklists}
            empty="No blocklist checks yet: no blocklists configured (POSTLINE_DNSBLS), or their first check has not run."
          />
        </section>
      )}
    </>
  );
}

function LastReply({ reply }: { reply: Reply | null }) {
  if (!reply) return <span className="hint">not tried yet</span>;
  return (
    <span className="reply">
      <code className="reply-text">{reply.reply}</code>
      <span className="hint">
        {reply.mx_host ?? 'no MX host'} · {formatTime(reply.at)}
      </span>
    </span>
  );
}

/** Retry now, and pause (with a reason) or resume; a paused destination only resumes. */
function Actions({ destination, pause, compact }: { destination: string; pause: Pause | null | undefined; compact?: boolean }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['queue'] });
  const path = destinationPath(destination);
  const retry = useMutation({ mutationFn: () => api('POST', `${path}/retry`), onSuccess: refresh });
  const resume = useMutation({ mutationFn: () => api('POST', `${path}/resume`), onSuccess: refresh });
  const pauseIt = useMutation({
    mutationFn: (reason: string) => api('POST', `${path}/pause`, { reason } satisfies RequestBody<'/queue/destinations/{destination}/pause', 'post'>),
    onSuccess: refresh,
  });
  const label = (what: string) => (compact ? `${what} ${destination}` : undefined);
  return (
    <span className="row actions-inline">
      {!pause && (
        <button type="button" className="small" onClick={() => retry.mutate()} disabled={retry.isPending} aria-label={label('Retry now')}>
          Retry now
        </button>
      )}
      {pause ? (
        <button type="button" className="secondary small" onClick={() => resume.mutate()} disabled={resume.isPending} aria-label={label('Resume')}>
          Resume
        </button>
      ) : (
        <button type="button" className="secondary small" onClick={() => setAsking(true)} aria-label={label('Pause')}>
          Pause
        </button>
      )}
      <ErrorMessage error={retry.error ?? resume.error ?? pauseIt.error} />
      <ReasonDialog
        open={asking}
        title={`Pause ${destination}?`}
        explanation="Its mail waits, visibly, until you resume it (the max queue age still applies)."
        confirm="Pause"
        onSubmit={(reason) => pauseIt.mutate(reason)}
        onClose={() => setAsking(false)}
      />
    </span>
  );
}

/** A modal that asks for a one-line reason before an action. */
function ReasonDialog(props: { open: boolean; title: string; explanation: string; confirm: string; onSubmit: (reason: string) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const inputId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (props.open && dialog && !dialog.open) dialog.showModal();
    if (!props.open && dialog?.open) dialog.close();
  }, [props.open]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit(reason.trim());
    setReason('');
    props.onClose();
  };
  return (
    <dialog ref={ref} onClose={props.onClose} aria-label={props.title}>
      <form onSubmit={submit}>
        <h2 className="dialog-title">{props.title}</h2>
        <p>{props.explanation}</p>
        <label htmlFor={inputId}>Reason</label>
        <input id={inputId} required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
        <div className="actions">
          <button type="button" className="secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit">{props.confirm}</button>
        </div>
      </form>
    </dialog>
  );
}

/** The MTA-STS policies mail to the destination is held to (docs/SECURITY.md). */
function StsPolicies({ policies }: { policies: StsPolicyView[] }) {
  if (policies.length === 0) return null;
  return (
    <section className="sts-policies" aria-label="MTA-STS policies">
      {policies.map((p) => (
        <p key={p.domain}>
          <strong>MTA-STS of {p.domain}:</strong>{' '}
          {p.policy
            ? `${p.policy.mode} (id ${p.policy.id}), MX ${p.policy.mx.join(', ') || 'none'}; fetched ${formatTime(p.policy.fetched_at)}, expires ${formatTime(p.policy.expires_at)}`
            : p.last_error
              ? 'none in force'
              : 'none published'}
          {p.checked_at && <span className="hint"> · last looked up {formatTime(p.checked_at)}</span>}
          {p.last_error && <span className="hint block">Last lookup failed: {p.last_error}</span>}
        </p>
      ))}
    </section>
  );
}

export function QueueDestinationPage({ destination }: { destination: string }) {
  const queryClient = useQueryClient();
  const summary = useSummary();
  const [failing, setFailing] = useState<QueuedMessage>();
  const messages = usePagedList<QueuedMessage>(
    ['queue', destination],
    (after) => `${destinationPath(destination)}?limit=50${after ? `&after=${after}` : ''}`,
    REFRESH_MS,
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['queue'] });
  const retry = useMutation({ mutationFn: (emailId: string) => api('POST', `/queue/emails/${emailId}/retry`), onSuccess: refresh });
  const fail = useMutation({
    mutationFn: (v: { emailId: string; reason: string }) =>
      api('POST', `/queue/emails/${v.emailId}/fail`, { reason: v.reason } satisfies RequestBody<'/queue/emails/{id}/fail', 'post'>),
    onSuccess: refresh,
  });
  const pause = summary.data?.pauses.find((p) => p.destination === destination);
  return (
    <>
      <p>
        <a href="/dashboard/queue" onClick={follow('/queue')}>
          ← Queue
        </a>
      </p>
      <h1>{destination}</h1>
      {pause && (
        <p className="notice">
          Paused since {formatTime(pause.since)}: {pause.reason}
        </p>
      )}
      <Actions destination={destination} pause={pause} />
      <StsPolicies policies={(messages.list.data as DestinationList | undefined)?.mta_sts ?? []} />
      <ErrorMessage error={retry.error ?? fail.error} />
      <PagedTable
        paged={messages}
        empty={`Nothing waits for ${destination}.`}
        rowHeaders={false}
        columns={[
          { header: 'Recipient', cell: (m) => m.recipient },
          { header: 'Subject', cell: (m) => m.subject },
          {
            header: 'State',
            cell: (m) => (
              <>
                {m.state.replace('_', ' ')}
                {m.paused_reason && <span className="hint block">{m.paused_reason}</span>}
                {m.waiting_reason && <span className="hint block">{m.waiting_reason}</span>}
              </>
            ),
          },
          { header: 'Attempts', cell: (m) => m.attempts, className: 'number' },
          { header: 'Queued', cell: (m) => formatTime(m.created_at) },
          { header: 'Next try', cell: (m) => (m.next_attempt_at ? formatTime(m.next_attempt_at) : '—') },
          { header: 'Last reply', cell: (m) => <LastReply reply={m.last_attempt} /> },
          {
            header: 'Actions',
            hideHeader: true,
            cell: (m) => (
              <span className="row actions-inline">
                <button type="button" className="small" onClick={() => retry.mutate(m.email_id)} aria-label={`Retry the email to ${m.recipient} now`}>
                  Retry
                </button>
                <button type="button" className="danger small" onClick={() => setFailing(m)} aria-label={`Give up the email to ${m.recipient}`}>
                  Give up
                </button>
              </span>
            ),
          },
        ]}
      />
      <ReasonDialog
        open={failing !== undefined}
        title="Give up this email?"
        explanation={`Its waiting recipients fail with email.failed and this reason; nothing more is tried for ${failing?.recipient ?? ''}.`}
        confirm="Give up"
        onSubmit={(reason) => failing && fail.mutate({ emailId: failing.email_id, reason })}
        onClose={() => setFailing(undefined)}
      />
    </>
  );
}
