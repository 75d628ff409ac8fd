// Automations (/automations, src/automations/): the list; an automation's page with its steps
// drawn as a graph (automation-graph.tsx), its runs page by page, stop and duplicate after a
// confirmation; a run's page with the state of each step it reached.
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type List } from '../api';
import { AutomationGraph, type ConnectionDef, STEP_NAMES, type StepDef, type StepState } from '../automation-graph';
import { ConfirmDialog, ErrorMessage, formatTime, Pager, useCursor } from '../components';
import { follow, navigate } from '../router';

interface AutomationSummary {
  id: string;
  name: string;
  status: 'enabled' | 'disabled';
  created_at: string;
  updated_at: string;
}
interface Automation extends AutomationSummary {
  steps: StepDef[];
  connections: ConnectionDef[];
}
const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
interface RunSummary {
  id: string;
  status: (typeof RUN_STATUSES)[number];
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}
interface RunStep {
  key: string;
  type: string;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  output: Record<string, unknown> | null;
  error: { name?: string; message?: string } | null;
  created_at: string;
}
interface Run extends RunSummary {
  steps: RunStep[];
}

const automationPath = (id: string) => `/automations/${encodeURIComponent(id)}`;
const useAutomation = (id: string) => useQuery({ queryKey: ['automation', id], queryFn: () => api<Automation>('GET', automationPath(id)) });
const triggerOf = (a: Automation | undefined) => a?.steps.find((s) => s.type === 'trigger')?.config.event_name as string | undefined;

function Status({ value }: { value: string }) {
  const kind =
    value === 'enabled' || value === 'completed' ? 'status-verified' : value === 'failed' ? 'status-failed' : value === 'running' ? 'status-pending' : '';
  return <span className={`status ${kind}`}>{value}</span>;
}

export function AutomationsPage() {
  const cursor = useCursor();
  const list = useQuery({
    queryKey: ['automations', cursor.after],
    queryFn: () => api<List<AutomationSummary>>('GET', `/automations?limit=20${cursor.after ? `&after=${cursor.after}` : ''}`),
  });
  const rows = list.data?.data ?? [];
  // The list does not carry the trigger (Resend's list items have no steps): each row's
  // automation is read once, and is then already there when it is opened.
  const details = useQueries({ queries: rows.map((a) => ({ queryKey: ['automation', a.id], queryFn: () => api<Automation>('GET', automationPath(a.id)) })) });
  return (
    <>
      <h1>Automations</h1>
      <p>Workflows that start when your application sends an event (POST /events/send) and then send email, wait, branch and update the contact.</p>
      <ErrorMessage error={list.error} />
      {list.data && rows.length === 0 && cursor.page === 1 && (
        <p className="notice">
          No automations yet: create one with the API (POST /automations, or automations.create in the SDK) and it appears here with its steps drawn.
        </p>
      )}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Trigger</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a, i) => (
                <tr key={a.id}>
                  <th scope="row">
                    <a href={`/dashboard/automations/${a.id}`} onClick={follow(`/automations/${a.id}`)}>
                      {a.name}
                    </a>
                  </th>
                  <td>
                    <Status value={a.status} />
                  </td>
                  <td>{triggerOf(details[i]?.data) ? <code>{triggerOf(details[i]?.data)}</code> : <span className="hint">…</span>}</td>
                  <td>{formatTime(a.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} hasMore={list.data?.has_more ?? false} lastId={rows.at(-1)?.id} />
    </>
  );
}

export function AutomationPage({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const automation = useAutomation(id);
  const [asking, setAsking] = useState<'stop' | 'duplicate'>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['automation'] });
  const stop = useMutation({
    mutationFn: () => api('POST', `${automationPath(id)}/stop`),
    onSuccess: () => {
      void refresh();
      void queryClient.invalidateQueries({ queryKey: ['automations'] });
    },
  });
  const duplicate = useMutation({
    mutationFn: () => api<{ id: string }>('POST', `${automationPath(id)}/duplicate`),
    onSuccess: (copy) => {
      void queryClient.invalidateQueries({ queryKey: ['automations'] });
      navigate(`/automations/${copy.id}`);
    },
  });
  const a = automation.data;
  return (
    <>
      <p>
        <a href="/dashboard/automations" onClick={follow('/automations')}>
          ← Automations
        </a>
      </p>
      <ErrorMessage error={automation.error} />
      {a && (
        <>
          <h1>{a.name}</h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <Status value={a.status} />
            </dd>
            <dt>Trigger</dt>
            <dd>
              <code>{triggerOf(a)}</code>
            </dd>
            <dt>Created</dt>
            <dd>{formatTime(a.created_at)}</dd>
            <dt>Updated</dt>
            <dd>{formatTime(a.updated_at)}</dd>
          </dl>
          <div className="row actions-inline">
            <button type="button" className="danger" disabled={stop.isPending} onClick={() => setAsking('stop')}>
              Stop
            </button>
            <button type="button" className="secondary" onClick={() => setAsking('duplicate')}>
              Duplicate
            </button>
          </div>
          <ErrorMessage error={stop.error ?? duplicate.error} />
          <h2>Steps</h2>
          <AutomationGraph steps={a.steps} connections={a.connections} title={`The steps of ${a.name}`} />
          <h2>Runs</h2>
          <Runs automationId={a.id} />
          {/* One dialog for both questions: each dialog names itself by the same element id. */}
          <ConfirmDialog
            open={asking !== undefined}
            title={asking === 'stop' ? `Stop ${a.name}?` : `Duplicate ${a.name}?`}
            confirm={asking === 'stop' ? 'Stop' : 'Duplicate'}
            onConfirm={() => {
              if (asking === 'stop') stop.mutate();
              else duplicate.mutate();
              setAsking(undefined);
            }}
            onClose={() => setAsking(undefined)}
          >
            {asking === 'stop' ? (
              <p>It is disabled, so no event starts it again, and every run still going is cancelled: their waiting steps never happen.</p>
            ) : (
              <p>A copy named “{a.name} (Copy)” is made with the same steps, disabled until you enable it.</p>
            )}
          </ConfirmDialog>
        </>
      )}
    </>
  );
}

function Runs({ automationId }: { automationId: string }) {
  const [status, setStatus] = useState('');
  return (
    <>
      <div className="row inline-filter">
        <label htmlFor="run-status">Show</label>
        <select id="run-status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Every run</option>
          {RUN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      {/* Keyed by the filter: another status starts again at the first page. */}
      <RunList key={status} automationId={automationId} status={status} />
    </>
  );
}

function RunList({ automationId, status }: { automationId: string; status: string }) {
  const cursor = useCursor();
  const runs = useQuery({
    queryKey: ['automation', automationId, 'runs', status, cursor.after],
    queryFn: () =>
      api<List<RunSummary>>(
        'GET',
        `${automationPath(automationId)}/runs?limit=20${status ? `&status=${status}` : ''}${cursor.after ? `&after=${cursor.after}` : ''}`,
      ),
    refetchInterval: 5000,
  });
  const rows = runs.data?.data ?? [];
  return (
    <>
      <ErrorMessage error={runs.error} />
      {runs.data && rows.length === 0 && cursor.page === 1 && (
        <p className="notice">
          {status ? `No ${status} runs.` : 'No runs yet: each event this automation is triggered by starts one, while the automation is enabled.'}
        </p>
      )}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Finished</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <a href={`/dashboard/automations/${automationId}/runs/${r.id}`} onClick={follow(`/automations/${automationId}/runs/${r.id}`)}>
                      <code>{r.id.slice(0, 8)}</code>
                      <span className="visually-hidden"> (run {r.id})</span>
                    </a>
                  </th>
                  <td>
                    <Status value={r.status} />
                  </td>
                  <td>{formatTime(r.started_at ?? r.created_at)}</td>
                  <td>{r.completed_at ? formatTime(r.completed_at) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursor={cursor} hasMore={runs.data?.has_more ?? false} lastId={rows.at(-1)?.id} />
    </>
  );
}

/** A step's state as a person reads it: "waiting until …", "done", "failed: the reason". */
function stepState(step: RunStep): StepState {
  const out = step.output ?? {};
  switch (step.status) {
    case 'waiting': {
      const until = typeof out.until === 'string' ? formatTime(out.until) : undefined;
      const event = typeof out.event_name === 'string' ? out.event_name : undefined;
      if (event) return { status: 'waiting', detail: `Waiting for the event “${event}”${until ? ` until ${until}` : ''}.` };
      return { status: 'waiting', detail: until ? `Waiting until ${until}.` : 'Waiting.' };
    }
    case 'completed': {
      const facts: string[] = [];
      if (typeof out.result === 'boolean') facts.push(out.result ? 'condition met' : 'condition not met');
      if (out.timed_out === true) facts.push('timed out');
      if (typeof out.to === 'string') facts.push(`sent to ${out.to}`);
      if (Array.isArray(out.changed)) facts.push(`changed ${out.changed.join(', ') || 'nothing'}`);
      return { status: 'completed', detail: `Done ${formatTime(step.completed_at)}${facts.length ? `: ${facts.join(', ')}` : ''}.` };
    }
    case 'failed':
      return { status: 'failed', detail: `Failed: ${step.error?.message ?? step.error?.name ?? 'no reason recorded'}.` };
    case 'skipped':
      return { status: 'skipped', detail: `Skipped${typeof out.reason === 'string' ? `: ${out.reason}` : ' (the run ended first)'}.` };
    case 'running':
      return { status: 'running', detail: `Running since ${formatTime(step.started_at)}.` };
    default:
      return { status: step.status, detail: 'Pending: due now.' };
  }
}

export function RunPage({ automationId, runId }: { automationId: string; runId: string }) {
  const automation = useAutomation(automationId);
  const run = useQuery({
    queryKey: ['automation', automationId, 'run', runId],
    queryFn: () => api<Run>('GET', `${automationPath(automationId)}/runs/${encodeURIComponent(runId)}`),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 3000 : false),
  });
  const a = automation.data;
  const r = run.data;
  const states = new Map((r?.steps ?? []).map((s) => [s.key, stepState(s)]));
  return (
    <>
      <p>
        <a href={`/dashboard/automations/${automationId}`} onClick={follow(`/automations/${automationId}`)}>
          ← {a?.name ?? 'Automation'}
        </a>
      </p>
      <ErrorMessage error={run.error ?? automation.error} />
      {r && (
        <>
          <h1>
            Run <code>{r.id.slice(0, 8)}</code>
            {a && <span className="hint"> of {a.name}</span>}
          </h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <Status value={r.status} />
            </dd>
            <dt>Started</dt>
            <dd>{formatTime(r.started_at ?? r.created_at)}</dd>
            <dt>Finished</dt>
            <dd>{r.completed_at ? formatTime(r.completed_at) : '—'}</dd>
          </dl>
          <h2>Steps</h2>
          {a && <AutomationGraph steps={a.steps} connections={a.connections} states={states} title={`This run's steps`} />}
          <h2>Step by step</h2>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Type</th>
                  <th scope="col">State</th>
                  <th scope="col">Reached</th>
                </tr>
              </thead>
              <tbody>
                {r.steps.map((s) => (
                  <tr key={s.key}>
                    <th scope="row">{s.key}</th>
                    <td>{STEP_NAMES[s.type] ?? s.type}</td>
                    <td>
                      <Status value={s.status} /> {states.get(s.key)?.detail}
                    </td>
                    <td>{formatTime(s.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {a && a.updated_at > r.created_at && (
            <p className="hint">The automation was changed after this run started: the drawing shows its steps now, the table the steps this run took.</p>
          )}
        </>
      )}
    </>
  );
}
