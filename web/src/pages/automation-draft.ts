// An automation being edited in the dashboard (automation-editor.tsx): its steps and connections
// as POST and PATCH /automations take them (src/automations/graph.ts), each step with an id of its
// own while edited, so that a key can be changed, or briefly be another step's, without losing
// where its connections go. What can be told before the API is asked (exactly one trigger, keys
// of the right form and unique, steps no run reaches) is checked here as the person edits; a
// config's own rules are the API's, whose 422 names the step (`steps[2].config.duration`, "Step
// `wait`") and is shown at it (stepOfFailure).
import { useQuery } from '@tanstack/react-query';
import { type Answer, api, everyValue, type Item, type List, type RequestBody } from '../api';

type Body = RequestBody<'/automations', 'post'>;
export type StepType = Body['steps'][number]['type'];
export type ConnectionType = NonNullable<Body['connections'][number]['type']>;
export type Config = Record<string, unknown>;
type Automation = Answer<'/automations/{id}'>;

/** A list of the account's (its first 100) that steps choose from: templates, segments, topics, events, properties. */
export const choices = <T>(path: string) => ({ queryKey: ['automation-choices', path], queryFn: () => api<List<T>>('GET', `${path}?limit=100`) });

/** The names of the templates (by id and alias) and segments steps refer to, for the drawing's list to say. */
export function useStepNames(): Map<string, string> {
  const templates = useQuery(choices<Item<'/templates'>>('/templates'));
  const segments = useQuery(choices<Item<'/segments'>>('/segments'));
  const names = new Map<string, string>();
  for (const t of templates.data?.data ?? []) {
    names.set(t.id, t.name);
    if (t.alias) names.set(t.alias, t.name);
  }
  for (const s of segments.data?.data ?? []) names.set(s.id, s.name);
  return names;
}

/** The palette's order: how a workflow is usually read, from its trigger down. */
export const STEP_TYPES = everyValue<StepType>({
  trigger: true,
  send_email: true,
  delay: true,
  wait_for_event: true,
  condition: true,
  contact_update: true,
  contact_delete: true,
  add_to_segment: true,
});
const CONNECTION_TYPES = everyValue<ConnectionType>({ default: true, condition_met: true, condition_not_met: true, timeout: true, event_received: true });

export interface DraftStep {
  id: number;
  key: string;
  type: StepType;
  config: Config;
}
export interface DraftConnection {
  from: number;
  to: number;
  type: ConnectionType;
}
export interface Draft {
  name: string;
  steps: DraftStep[];
  connections: DraftConnection[];
}

/**
 * The branches a step of each type leads on by (graph.ts OUTGOING): a wait_for_event step's
 * `default` is its `event_received`, offered as that; one an automation already has is kept.
 */
export function branchesOf(type: StepType): ConnectionType[] {
  if (type === 'condition') return ['condition_met', 'condition_not_met'];
  if (type === 'wait_for_event') return ['event_received', 'timeout'];
  return ['default'];
}

/** How a branch reads before the step it leads to: "Then", "If yes, then". */
export const BRANCH_PHRASES: Record<ConnectionType, string> = {
  default: 'Then',
  condition_met: 'If yes, then',
  condition_not_met: 'If no, then',
  event_received: 'When the event comes, then',
  timeout: 'If it does not come in time, then',
};

const KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

/** A new step's first config: the fields its type requires, empty, for the form to fill. */
export function emptyConfig(type: StepType): Config {
  switch (type) {
    case 'trigger':
    case 'wait_for_event':
      return { event_name: '' };
    case 'send_email':
      return { template: { id: '' } };
    case 'delay':
      return { duration: '' };
    case 'condition':
      return { type: 'rule', field: '', operator: 'eq', value: '' };
    case 'add_to_segment':
      return { segment_id: '' };
    default:
      return {};
  }
}

export const newDraft = (): Draft => ({ name: '', steps: [{ id: 1, key: 'start', type: 'trigger', config: emptyConfig('trigger') }], connections: [] });

export function draftOf(a: Automation): Draft {
  const ids = new Map(a.steps.map((s, i) => [s.key, i + 1]));
  return {
    name: a.name,
    steps: a.steps.map((s, i) => ({ id: i + 1, key: s.key, type: s.type as StepType, config: s.config ?? {} })),
    connections: a.connections
      .filter((c) => ids.has(c.from) && ids.has(c.to))
      .map((c) => ({
        from: ids.get(c.from)!,
        to: ids.get(c.to)!,
        type: CONNECTION_TYPES.includes(c.type as ConnectionType) ? (c.type as ConnectionType) : 'default',
      })),
  };
}

/** A key no step has yet: `delay`, then `delay_2`, … */
export function freeKey(steps: DraftStep[], type: StepType): string {
  const taken = new Set(steps.map((s) => s.key));
  if (!taken.has(type)) return type;
  let n = 2;
  while (taken.has(`${type}_${n}`)) n++;
  return `${type}_${n}`;
}

/**
 * The steps `id` may lead to without closing a loop: not itself, not the trigger, and none it
 * is reached from (the API refuses cycles: graph.ts).
 */
export function possibleTargets(draft: Draft, id: number): DraftStep[] {
  const before = new Set<number>([id]);
  const queue = [id];
  while (queue.length > 0) {
    const to = queue.shift()!;
    for (const c of draft.connections) {
      if (c.to === to && !before.has(c.from)) {
        before.add(c.from);
        queue.push(c.from);
      }
    }
  }
  return draft.steps.filter((s) => s.type !== 'trigger' && !before.has(s.id));
}

/** What a step is told before saving; `blocking`: the API would refuse the automation for it. */
export interface Problem {
  message: string;
  blocking: boolean;
  /** Told only once the person tries to save (a name not typed yet is no mistake while building). */
  onSave?: true;
}
interface Problems {
  /** About the automation as a whole (no trigger, no name). */
  general: Problem[];
  byStep: Map<number, Problem[]>;
  blocking: boolean;
}

export function problemsOf(draft: Draft): Problems {
  const general: Problem[] = [];
  const byStep = new Map<number, Problem[]>();
  const add = (id: number, message: string, blocking: boolean) => byStep.set(id, [...(byStep.get(id) ?? []), { message, blocking }]);
  if (!draft.name.trim()) general.push({ message: 'Give the automation a name.', blocking: true, onSave: true });
  const triggers = draft.steps.filter((s) => s.type === 'trigger');
  if (triggers.length === 0) general.push({ message: 'Add a trigger: the event that starts each run.', blocking: true });
  for (const extra of triggers.slice(1)) add(extra.id, 'A second trigger: an automation has exactly one. Delete this one.', true);
  const seen = new Map<string, number>();
  for (const s of draft.steps) {
    if (!KEY.test(s.key)) add(s.id, 'Its key must be 1 to 100 ASCII letters, digits, _, -, . or :.', true);
    else if (seen.has(s.key)) add(s.id, `Another step has the key “${s.key}”.`, true);
    seen.set(s.key, s.id);
  }
  // Steps no connection from the trigger reaches: allowed, but no run ever gets there.
  const reached = new Set(triggers.slice(0, 1).map((t) => t.id));
  const queue = [...reached];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const c of draft.connections) {
      if (c.from === from && !reached.has(c.to)) {
        reached.add(c.to);
        queue.push(c.to);
      }
    }
  }
  if (triggers.length > 0) {
    for (const s of draft.steps) {
      if (!reached.has(s.id) && s.type !== 'trigger') add(s.id, 'Not connected: no step leads to it from the trigger, so no run reaches it.', false);
    }
  }
  const blocking = general.some((p) => p.blocking) || [...byStep.values()].some((ps) => ps.some((p) => p.blocking));
  return { general, byStep, blocking };
}

/** Text fields a form left empty are left out (the API's optional fields), required ones sent as they are, for the API to name. */
function cleanConfig(type: StepType, config: Config): Config {
  const out: Config = {};
  const required = Object.keys(emptyConfig(type));
  for (const [field, value] of Object.entries(config)) {
    if (value === '' && !required.includes(field) && type !== 'condition') continue;
    out[field] = value;
  }
  return out;
}

/** The body of POST /automations (PATCH takes the same fields). */
export function bodyOf(draft: Draft): Body {
  const keyOf = new Map(draft.steps.map((s) => [s.id, s.key]));
  return {
    name: draft.name,
    steps: draft.steps.map((s) => ({ key: s.key, type: s.type, config: cleanConfig(s.type, s.config) })),
    connections: draft.connections.map((c) => ({ from: keyOf.get(c.from)!, to: keyOf.get(c.to)!, type: c.type })),
  };
}

/** Where an API's refusal points: the step (by its id while edited) and the config field it names. */
export interface StepFailure {
  stepId: number;
  /** The config's top field (`duration` of `steps[2].config.duration`), for its input to be marked. */
  field?: string;
  message: string;
}

/**
 * The step a 422 of POST or PATCH names, in any of the API's forms: a field's path
 * (`steps[2].config.duration`, "Missing `steps[3].config.template.id` field"), "Step `key` …",
 * a connection (`connections[4]`: its source step), a cycle (its first step).
 */
export function stepOfFailure(message: string, draft: Draft): StepFailure | undefined {
  const byPath = /`steps\[(\d+)\](?:\.config\.([A-Za-z_]+))?/.exec(message);
  if (byPath) {
    const step = draft.steps[Number(byPath[1])];
    return step && { stepId: step.id, field: byPath[2], message };
  }
  const byKey = /^Step `([^`]+)`/.exec(message) ?? /cycle: `([^`]+)`/.exec(message);
  if (byKey) {
    const step = draft.steps.find((s) => s.key === byKey[1]);
    return step && { stepId: step.id, message };
  }
  const byConnection = /`connections\[(\d+)\]/.exec(message);
  if (byConnection) {
    const c = draft.connections[Number(byConnection[1])];
    return c && { stepId: c.from, message };
  }
  return undefined;
}
