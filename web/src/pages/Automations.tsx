// Automations (/automations, src/automations/): the list; an automation's page with its steps
// drawn as a graph (automation-graph.tsx), its runs page by page, enable and disable, stop and
// duplicate after a confirmation; a run's page with the state of each step it reached. New and
// Edit open the editor (automation-editor.tsx).
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type Answer, api, everyValue, type Item } from '../api';
import { AutomationGraph, STEP_NAMES, type StepState } from '../automation-graph';
import { ConfirmDialog, ErrorMessage, formatTime, RecordError } from '../components';
import { forgetList, ListTable, PagedTable, usePagedList } from '../list-table';
import { follow, navigate } from '../router';
import { useStepNames } from './automation-draft';

type AutomationSummary = Item<'/automations'>;
type Automation = Answer<'/automations/{id}'>;
type RunSummary = Item<'/automations/{id}/runs'>;
type Run = Answer<'/automations/{id}/runs/{run_id}'>;
type RunStep = Run['steps'][number];
const RUN_STATUSES = everyValue<RunSummary['status']>({ running: true, completed: true, failed: true, cancelled: true });

const automationPath = (id: string) => `/automations/${encodeURIComponent(id)}`;
const useAutomation = (id: string) => useQuery({ queryKey: ['automation', id], queryFn: () => api<Automation>('GET', automationPath(id)) });
const triggerOf = (a: Automation | undefined) => a?.steps.find((s) => s.type === 'trigger')?.config.event_name as string | undefined;

function Status({ value }: { value: string }) {
  const kind =
    value === 'enabled' || value === 'completed' ? 'status-verified' : value === 'failed' ? 'status-failed' : value === 'running' ? 'status-pending' : '';
  return <span className={`status ${kind}`}>{value}</span>;
}

export function AutomationsPage() {
  const list = usePagedList<AutomationSummary>(['automations'], (after) => `/automations?limit=20${after ? `&after=${after}` : ''}`);
  // The list does not carry the trigger (Resend's list items have no steps): each row's
  // automation is read once, and is then already there when it is opened.
  const details = useQueries({
    queries: list.rows.map((a) => ({ queryKey: ['automation', a.id], queryFn: () => api<Automation>('GET', automationPath(a.id)) })),
  });
  const triggers = new Map(list.rows.map((a, i) => [a.id, triggerOf(details[i]?.data)]));
  return (
    <>
      <h1>Automations</h1>
      <p>Workflows that start when your application sends an event (POST /events/send) and then send email, wait, branch and update the contact.</p>
      <p>
        <a className="button-link" href="/dashboard/automations/new" onClick={follow('/automations/new')}>
          New automation
        </a>
      </p>
      <PagedTable
        paged={list}
        empty="No automations yet: make one with “New automation”, or with the API (POST /automations, automations.create in the SDK)."
        columns={[
          {
            header: 'Name',
            cell: (a) => (
              <a href={`/dashboard/automations/${a.id}`} onClick={follow(`/automations/${a.id}`)}>
                {a.name}
              </a>
            ),
          },
          { header: 'Status', cell: (a) => <Status value={a.status} /> },
          {
            header: 'Trigger',
            cell: (a) => {
              const trigger = triggers.get(a.id);
              return trigger ? <code>{trigger}</code> : <span className="hint">…</span>;
            },
          },
          { header: 'Created', cell: (a) => formatTime(a.created_at) },
        ]}
      />
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
      forgetList(queryClient, ['automations']);
    },
  });
  const setStatus = useMutation({
    mutationFn: (status: Automation['status']) => api<Answer<'/automations/{id}', 'patch'>>('PATCH', automationPath(id), { status }),
    onSuccess: () => {
      void refresh();
      forgetList(queryClient, ['automations']);
    },
  });
  const duplicate = useMutation({
    mutationFn: () => api<Answer<'/automations/{id}/duplicate', 'post'>>('POST', `${automationPath(id)}/duplicate`),
    onSuccess: (copy) => {
      forgetList(queryClient, ['automations']);
      navigate(`/automations/${copy.id}`);
    },
  });
  const names = useStepNames();
  const a = automation.data;
  return (
    <>
      <p>
        <a href="/dashboard/automations" onClick={follow('/automations')}>
          ← Automations
        </a>
      </p>
      <RecordError what="Automation" query={automation} />
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
          <div className="row automation-actions">
            <a className="button-link" href={`/dashboard/automations/${a.id}/edit`} onClick={follow(`/automations/${a.id}/edit`)}>
              Edit
            </a>
            {a.status === 'enabled' ? (
              <button type="button" className="secondary" disabled={setStatus.isPending} onClick={() => setStatus.mutate('disabled')}>
                Disable
              </button>
            ) : (
              <button type="button" className="secondary" disabled={setStatus.isPending} onClick={() => setStatus.mutate('enabled')}>
                Enable
              </button>
            )}
            <button type="button" className="secondary" onClick={() => setAsking('duplicate')}>
              Duplicate
            </button>
            <button type="button" className="danger" disabled={stop.isPending} onClick={() => setAsking('stop')}>
              Stop
            </button>
          </div>
          <p className="hint">
            {a.status === 'enabled'
              ? 'Each event it is triggered by starts a run. Disable stops new runs and lets those under way finish; Stop also cancels them.'
              : 'Disabled: events start no run until it is enabled.'}
          </p>
          <ErrorMessage error={stop.error ?? duplicate.error ?? setStatus.error} />
          <h2>Steps</h2>
          <AutomationGraph steps={a.steps} connections={a.connections} title={`The steps of ${a.name}`} names={names} />
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
  const runs = usePagedList<RunSummary>(
    ['automation', automationId, 'runs', status],
    (after) => `${automationPath(automationId)}/runs?limit=20${status ? `&status=${status}` : ''}${after ? `&after=${after}` : ''}`,
    5000,
  );
  return (
    <PagedTable
      paged={runs}
      empty={status ? `No ${status} runs.` : 'No runs yet: each event this automation is triggered by starts one, while the automation is enabled.'}
      columns={[
        {
          header: 'Run',
          cell: (r) => (
            <a href={`/dashboard/automations/${automationId}/runs/${r.id}`} onClick={follow(`/automations/${automationId}/runs/${r.id}`)}>
              <code>{r.id.slice(0, 8)}</code>
              <span className="visually-hidden"> (run {r.id})</span>
            </a>
          ),
        },
        { header: 'Status', cell: (r) => <Status value={r.status} /> },
        { header: 'Started', cell: (r) => formatTime(r.started_at ?? r.created_at) },
        { header: 'Finished', cell: (r) => (r.completed_at ? formatTime(r.completed_at) : '—') },
      ]}
    />
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
  const names = useStepNames();
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
      <RecordError what="Run" query={run} />
      {r && <ErrorMessage error={automation.error} />}
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
          {a && <AutomationGraph steps={a.steps} connections={a.connections} states={states} title={`This run's steps`} names={names} />}
          <h2>Step by step</h2>
          <ListTable
            rows={r.steps}
            rowKey={(s) => s.key}
            columns={[
              { header: 'Step', cell: (s) => s.key },
              { header: 'Type', cell: (s) => STEP_NAMES[s.type] ?? s.type },
              {
                header: 'State',
                cell: (s) => (
                  <>
                    <Status value={s.status} /> {states.get(s.key)?.detail}
                  </>
                ),
              },
              { header: 'Reached', cell: (s) => formatTime(s.created_at) },
            ]}
          />
          {a && a.updated_at > r.created_at && (
            <p className="hint">The automation was changed after this run started: the drawing shows its steps now, the table the steps this run took.</p>
          )}
        </>
      )}
    </>
  );
}
