// Creating an automation (/automations/new: POST /automations) or editing one
// (/automations/:id/edit: PATCH /automations/:id with its name, steps and connections). A
// structured editor rather than a canvas: steps are added from a palette after the step and
// branch they follow, picked in the drawing's list (automation-graph.tsx, drawn live from the
// draft), and edited in the side panel (automation-step-form.tsx), where each branch's next step
// is chosen; everything is a native control, so it works by keyboard and screen reader. Problems
// the draft shows before the API is asked are marked at their step as the person edits
// (automation-draft.ts problemsOf); the API's own refusal (422) is shown at the step it names.
// Unsaved changes are kept from being lost: leaving in the app asks first, and the browser asks
// before the tab is closed or reloaded (unsaved-changes.tsx).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { type Answer, ApiFailure, api } from '../api';
import { AutomationGraph, STEP_NAMES } from '../automation-graph';
import { ConfirmDialog, ErrorMessage } from '../components';
import { forgetList } from '../list-table';
import { follow, navigate } from '../router';
import { useUnsavedChanges } from '../unsaved-changes';
import {
  BRANCH_PHRASES,
  bodyOf,
  branchesOf,
  type ConnectionType,
  type Draft,
  type DraftStep,
  draftOf,
  emptyConfig,
  freeKey,
  newDraft,
  problemsOf,
  STEP_TYPES,
  type StepFailure,
  type StepType,
  stepOfFailure,
  useStepNames,
} from './automation-draft';
import { StepForm } from './automation-step-form';

type Automation = Answer<'/automations/{id}'>;

export function AutomationEditorPage({ id }: { id?: string }) {
  const existing = useQuery({
    queryKey: ['automation', id],
    queryFn: () => api<Automation>('GET', `/automations/${encodeURIComponent(id!)}`),
    enabled: id !== undefined,
  });
  // The draft is made once, from the automation as it is now: not from a copy cached earlier.
  if (id !== undefined && !(existing.data && existing.isFetchedAfterMount)) {
    return existing.error ? <ErrorMessage error={existing.error} /> : <p className="loading">Loading…</p>;
  }
  return <Editor automation={existing.data} />;
}

/** Where a new step goes: after a step, on one of its branches; or not connected yet. */
type Place = { from: number; branch: ConnectionType } | undefined;
const placeValue = (p: Place) => (p ? `${p.from}:${p.branch}` : '');

function Editor({ automation }: { automation?: Automation }) {
  const queryClient = useQueryClient();
  const uid = useId();
  const [initial] = useState(() => (automation ? draftOf(automation) : newDraft()));
  const [draft, setDraft] = useState<Draft>(initial);
  const [selected, setSelected] = useState<number | undefined>(initial.steps[0]?.id);
  const [failure, setFailure] = useState<StepFailure>();
  const [showProblems, setShowProblems] = useState(false);
  const [deleting, setDeleting] = useState<DraftStep>();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  const focusPanel = useRef(false);

  const dirty = JSON.stringify(draft) !== JSON.stringify(initial);
  const problems = problemsOf(draft);
  const names = useStepNames();

  const unsaved = useUnsavedChanges(dirty, 'this automation');
  useEffect(() => {
    if (!focusPanel.current) return;
    focusPanel.current = false;
    headingRef.current?.focus();
  });

  /** Picks a step to edit; its panel's heading takes the focus, so a screen reader says which. */
  const select = (id: number | undefined) => {
    setSelected(id);
    focusPanel.current = true;
  };
  /** `touched`: the step changed (-1: none); the API's message about it was about the step as it was, and goes. */
  const change = (next: Draft, touched: number) => {
    setDraft(next);
    if (failure?.stepId === touched) setFailure(undefined);
  };

  const addStep = (type: StepType, place: Place) => {
    const id = Math.max(0, ...draft.steps.map((s) => s.id)) + 1;
    const step: DraftStep = { id, key: freeKey(draft.steps, type), type, config: emptyConfig(type) };
    let connections = draft.connections;
    if (place) {
      // Put between: what followed the place now follows the new step, on its first branch.
      const after = connections.filter((c) => c.from === place.from && c.type === place.branch);
      const first = branchesOf(type)[0]!;
      connections = [
        ...connections.filter((c) => !after.includes(c)),
        { from: place.from, to: id, type: place.branch },
        ...(type === 'trigger' ? [] : after.map((c) => ({ from: id, to: c.to, type: first }))),
      ];
    }
    change({ ...draft, steps: [...draft.steps, step], connections }, id);
    select(id);
  };

  const connect = (from: number, branch: ConnectionType, index: number, to: number | undefined) => {
    const mine = draft.connections.filter((c) => c.from === from && c.type === branch);
    const current = mine[index];
    const duplicate = to !== undefined && mine.some((c) => c.to === to && c !== current);
    let connections = draft.connections;
    if (current && (to === undefined || duplicate)) connections = connections.filter((c) => c !== current);
    else if (current && to !== undefined) connections = connections.map((c) => (c === current ? { ...c, to } : c));
    else if (to !== undefined && !duplicate) connections = [...connections, { from, to, type: branch }];
    change({ ...draft, connections }, from);
  };

  /** Deleting a step: what led to it leads on to the one step after it, if it had exactly one. */
  const deleteStep = (step: DraftStep) => {
    const out = draft.connections.filter((c) => c.from === step.id);
    const into = draft.connections.filter((c) => c.to === step.id);
    const rest = draft.connections.filter((c) => c.from !== step.id && c.to !== step.id);
    const bridged =
      out.length === 1
        ? into.filter((c) => !rest.some((r) => r.from === c.from && r.to === out[0]!.to && r.type === c.type)).map((c) => ({ ...c, to: out[0]!.to }))
        : [];
    change({ ...draft, steps: draft.steps.filter((s) => s.id !== step.id), connections: [...rest, ...bridged] }, step.id);
    select(into[0]?.from ?? draft.steps.find((s) => s.id !== step.id)?.id);
  };

  const save = useMutation({
    mutationFn: (sent: Draft) => {
      const body = bodyOf(sent);
      return automation
        ? api<Answer<'/automations/{id}', 'patch'>>('PATCH', `/automations/${encodeURIComponent(automation.id)}`, body)
        : api<Answer<'/automations', 'post'>>('POST', '/automations', body);
    },
    onSuccess: ({ id }) => {
      unsaved.release();
      forgetList(queryClient, ['automations']);
      void queryClient.invalidateQueries({ queryKey: ['automation', id] });
      navigate(`/automations/${id}`);
    },
    // The message names a step by its place in the draft as it was sent.
    onError: (error, sent) => {
      const at = error instanceof ApiFailure && error.status === 422 ? stepOfFailure(error.message, sent) : undefined;
      setFailure(at);
      if (at) select(at.stepId);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowProblems(true);
    if (problems.blocking) {
      summaryRef.current?.focus();
      return;
    }
    save.mutate(draft);
  };

  // The drawing and its list name steps by key: a key that is empty or another step's is told apart.
  const shownKeys = new Map<number, string>();
  const counts = new Map<string, number>();
  for (const s of draft.steps) {
    const base = s.key || '(no key)';
    const n = (counts.get(base) ?? 0) + 1;
    counts.set(base, n);
    shownKeys.set(s.id, n === 1 ? base : `${base} (${n})`);
  }
  const idOfShown = new Map([...shownKeys].map(([id, key]) => [key, id]));
  const stepProblems = new Map<string, { message: string; severe: boolean }>();
  for (const s of draft.steps) {
    const own = problems.byStep.get(s.id) ?? [];
    const messages = [...(failure?.stepId === s.id ? [failure.message] : []), ...own.map((p) => p.message)];
    const severe = failure?.stepId === s.id || own.some((p) => p.blocking);
    if (messages.length) stepProblems.set(shownKeys.get(s.id)!, { message: messages.join(' '), severe });
  }
  const step = draft.steps.find((s) => s.id === selected);
  const back = automation ? `/automations/${automation.id}` : '/automations';
  // Shown as the person edits; the name's absence only once they try to save.
  const blockingList = [
    ...problems.general.filter((p) => p.blocking && (showProblems || !p.onSave)).map((p) => p.message),
    ...draft.steps.flatMap((s) => (problems.byStep.get(s.id) ?? []).filter((p) => p.blocking).map((p) => `${shownKeys.get(s.id)}: ${p.message}`)),
  ];
  const unsavedFailure = save.error && !failure ? save.error : undefined;

  return (
    <>
      <p>
        <a href={`/dashboard${back}`} onClick={follow(back)}>
          ← {automation ? automation.name : 'Automations'}
        </a>
      </p>
      <h1>{automation ? `Edit ${automation.name}` : 'New automation'}</h1>
      <form onSubmit={submit} aria-labelledby={`${uid}-title`} className="automation-editor" noValidate>
        <h2 id={`${uid}-title`} className="visually-hidden">
          The automation
        </h2>
        <div className="panel">
          <label htmlFor={`${uid}-name`}>Name</label>
          <input id={`${uid}-name`} maxLength={255} value={draft.name} onChange={(e) => change({ ...draft, name: e.target.value }, -1)} />
          {automation ? (
            <p className="hint">Saved changes apply to runs that start from then on; runs under way keep the steps they started with.</p>
          ) : (
            <p className="hint">It is created disabled: enable it on its page once it is ready.</p>
          )}
        </div>
        <AddStep draft={draft} selected={selected} onAdd={addStep} />
        <div className="editor-layout">
          <section aria-labelledby={`${uid}-steps`} className="editor-graph">
            <h2 id={`${uid}-steps`}>Steps</h2>
            {draft.steps.length === 0 ? (
              <p className="hint">No steps: add a trigger first.</p>
            ) : (
              <AutomationGraph
                steps={draft.steps.map((s) => ({ key: shownKeys.get(s.id)!, type: s.type, config: s.config }))}
                connections={draft.connections.map((c) => ({ from: shownKeys.get(c.from)!, to: shownKeys.get(c.to)!, type: c.type }))}
                title={automation ? `The steps of ${draft.name || automation.name}` : 'The new automation’s steps'}
                selected={selected === undefined ? undefined : shownKeys.get(selected)}
                problems={stepProblems}
                names={names}
                onSelect={(key) => select(idOfShown.get(key))}
              />
            )}
          </section>
          <div className="editor-side">
            {step ? (
              <StepForm
                key={step.id}
                step={step}
                draft={draft}
                problems={problems.byStep.get(step.id) ?? []}
                failure={failure?.stepId === step.id ? failure : undefined}
                headingRef={headingRef}
                onChange={(next) => change({ ...draft, steps: draft.steps.map((s) => (s.id === next.id ? next : s)) }, next.id)}
                onConnect={(branch, index, to) => connect(step.id, branch, index, to)}
                onDelete={() => setDeleting(step)}
              />
            ) : (
              <p className="hint panel">Pick a step in the list to edit it.</p>
            )}
          </div>
        </div>
        {/* Save moves focus here to say what stops it. */}
        <div ref={summaryRef} tabIndex={-1} className="save-summary">
          {blockingList.length > 0 && (
            <div role={showProblems ? 'alert' : undefined} className="error">
              {showProblems ? 'Not saved yet:' : 'Before it can be saved:'}
              <ul>
                {blockingList.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            </div>
          )}
          {failure && (
            <p role="status" className="error">
              Not saved: the API refused the step {shownKeys.get(failure.stepId)}, as its panel says.
            </p>
          )}
          <ErrorMessage error={unsavedFailure} />
        </div>
        <div className="row actions-inline">
          <button type="submit" disabled={save.isPending}>
            {automation ? 'Save changes' : 'Create automation'}
          </button>
          <a className="button-link secondary" href={`/dashboard${back}`} onClick={follow(back)}>
            Cancel
          </a>
          {dirty && <span className="hint">Unsaved changes</span>}
        </div>
      </form>
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete the step ${deleting?.key ?? ''}?`}
        confirm="Delete step"
        onConfirm={() => {
          if (deleting) deleteStep(deleting);
          setDeleting(undefined);
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>Its connections go with it; a step that led to it leads on to the step after it, if there was exactly one.</p>
      </ConfirmDialog>
      {unsaved.dialog}
    </>
  );
}

/** The palette: a step of a type, placed after a step's branch (between it and what followed), or on its own. */
function AddStep({ draft, selected, onAdd }: { draft: Draft; selected: number | undefined; onAdd: (type: StepType, place: Place) => void }) {
  const id = useId();
  const hasTrigger = draft.steps.some((s) => s.type === 'trigger');
  const types = STEP_TYPES.filter((t) => t !== 'trigger' || !hasTrigger);
  // The person's choice, kept from one step to the next; before any, a trigger if there is none.
  const [type, setType] = useState<StepType>();
  const places = draft.steps.flatMap((s) => branchesOf(s.type).map((branch) => ({ from: s.id, branch, step: s })));
  // By default after the step being edited, on its first branch that leads nowhere yet.
  const chosenStep = places.filter((p) => p.from === selected);
  const free = chosenStep.find((p) => !draft.connections.some((c) => c.from === p.from && c.type === p.branch)) ?? chosenStep[0];
  const [place, setPlace] = useState<string>();
  const value = place ?? placeValue(free);
  const kind = type && types.includes(type) ? type : hasTrigger ? 'send_email' : 'trigger';
  const add = () => {
    const chosen = places.find((p) => placeValue(p) === value);
    onAdd(kind, kind === 'trigger' || !chosen ? undefined : { from: chosen.from, branch: chosen.branch });
    setPlace(undefined);
  };
  return (
    <fieldset className="panel add-step">
      <legend>Add a step</legend>
      <div className="row">
        <div>
          <label htmlFor={`${id}-type`}>Step</label>
          <select id={`${id}-type`} value={kind} onChange={(e) => setType(e.target.value as StepType)}>
            {types.map((t) => (
              <option key={t} value={t}>
                {STEP_NAMES[t] ?? t}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-after`}>After</label>
          <select id={`${id}-after`} value={kind === 'trigger' ? '' : value} disabled={kind === 'trigger'} onChange={(e) => setPlace(e.target.value)}>
            <option value="">Nothing yet (connect it later)</option>
            {places.map((p) => (
              <option key={placeValue(p)} value={placeValue(p)}>
                {p.step.key}
                {branchesOf(p.step.type).length > 1 ? ` (${BRANCH_PHRASES[p.branch].replace(/, then$/, '').toLowerCase()})` : ''}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="secondary" onClick={add}>
          Add step
        </button>
      </div>
    </fieldset>
  );
}
