// The queue (GET /queue, src/queue/routes.ts): what waits per destination and why, one
// destination's messages, and the repairs an operator makes here: retry now, pause with a
// reason, resume; per email, retry or give up with a reason.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { api, type List } from '../api';
import { ErrorMessage, formatAge, formatTime, Pager, useCursor } from '../components';
import { follow } from '../router';

const STATES = ['due', 'in_flight', 'deferred', 'scheduled', 'paused'] as const;
type Counts = Record<(typeof STATES)[number], number>;
interface Reply {
  at: string;
  mx_host: string | null;
  code: number | null;
  reply: string;
}
interface Pause {
  destination: string;
  kind: 'domain' | 'provider';
  reason: string;
  since: string;
}
interface QueueSummary {
  counts: Counts;
  total: number;
  oldest_age_seconds: number | null;
  destinations_total: number;
  has_more: boolean;
  destinations: {
    domain: string;
    provider: string | null;
    counts: Counts;
    total: number;
    oldest_age_seconds: number;
    last_reply: Reply | null;
    paused: Pause | null;
  }[];
  providers: { provider: string; domains: number; counts: Counts; total: number; oldest_age_seconds: number; paused: Pause | null }[];
  pauses: Pause[];
}
interface QueuedMessage {
  id: string;
  email_id: string;
  subject: string;
  recipient: string;
  state: string;
  attempts: number;
  created_at: string;
  next_attempt_at: string | null;
  last_attempt: Reply | null;
  paused_reason: string | null;
}

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
        <div className="table-wrap">
          <table className="queue">
            <thead>
              <tr>
                <th scope="col">Destination</th>
                <th scope="col">Provider</th>
                <th scope="col">Due</th>
                <th scope="col">In flight</th>
                <th scope="col">Deferred</th>
                <th scope="col">Scheduled</th>
                <th scope="col">Paused</th>
                <th scope="col">Oldest</th>
                <th scope="col">Last reply</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.destinations.map((d) => (
                <tr key={d.domain}>
                  <th scope="row">
                    <a href={`/dashboard/queue/${encodeURIComponent(d.domain)}`} onClick={follow(`/queue/${encodeURIComponent(d.domain)}`)}>
                      {d.domain}
                    </a>
                  </th>
                  <td>
                    {d.provider ? (
                      <a href={`/dashboard/queue/${encodeURIComponent(d.provider)}`} onClick={follow(`/queue/${encodeURIComponent(d.provider)}`)}>
                        {d.provider}
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                  {STATES.map((s) => (
                    <td key={s} className="number">
                      {d.counts[s]}
                    </td>
                  ))}
                  <td>{formatAge(d.oldest_age_seconds)}</td>
                  <td>
                    <LastReply reply={d.last_reply} />
                  </td>
                  <td>
                    <Actions destination={d.domain} pause={d.paused} compact />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
              <li key={p.destination}>
                <strong>{p.destination}</strong> ({p.kind}) since {formatTime(p.since)}: {p.reason} <Actions destination={p.destination} pause={p} compact />
              </li>
            ))}
          </ul>
        </>
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
  const pauseIt = useMutation({ mutationFn: (reason: string) => api('POST', `${path}/pause`, { reason }), onSuccess: refresh });
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

export function QueueDestinationPage({ destination }: { destination: string }) {
  const queryClient = useQueryClient();
  const summary = useSummary();
  const cursor = useCursor();
  const [failing, setFailing] = useState<QueuedMessage>();
  const messages = useQuery({
    queryKey: ['queue', destination, cursor.after],
    queryFn: () => api<List<QueuedMessage>>('GET', `${destinationPath(destination)}?limit=50${cursor.after ? `&after=${cursor.after}` : ''}`),
    refetchInterval: REFRESH_MS,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['queue'] });
  const retry = useMutation({ mutationFn: (emailId: string) => api('POST', `/queue/emails/${emailId}/retry`), onSuccess: refresh });
  const fail = useMutation({
    mutationFn: (v: { emailId: string; reason: string }) => api('POST', `/queue/emails/${v.emailId}/fail`, { reason: v.reason }),
    onSuccess: refresh,
  });
  const pause = summary.data?.pauses.find((p) => p.destination === destination);
  const rows = messages.data?.data ?? [];
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
      <ErrorMessage error={messages.error ?? retry.error ?? fail.error} />
      {messages.data && rows.length === 0 && <p className="notice">Nothing waits for {destination}.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Recipient</th>
                <th scope="col">Subject</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Queued</th>
                <th scope="col">Next try</th>
                <th scope="col">Last reply</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => (
                <tr key={m.id}>
                  <td>{m.recipient}</td>
                  <td>{m.subject}</td>
                  <td>
                    {m.state.replace('_', ' ')}
                    {m.paused_reason && <span className="hint block">{m.paused_reason}</span>}
                  </td>
                  <td className="number">{m.attempts}</td>
                  <td>{formatTime(m.created_at)}</td>
                  <td>{m.next_attempt_at ? formatTime(m.next_attempt_at) : '—'}</td>
                  <td>
                    <LastReply reply={m.last_attempt} />
                  </td>
                  <td>
                    <span className="row actions-inline">
                      <button type="button" className="small" onClick={() => retry.mutate(m.email_id)} aria-label={`Retry the email to ${m.recipient} now`}>
                        Retry
                      </button>
                      <button type="button" className="danger small" onClick={() => setFailing(m)} aria-label={`Give up the email to ${m.recipient}`}>
                        Give up
                      </button>
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} hasMore={messages.data?.has_more ?? false} lastId={rows.at(-1)?.id} />
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
