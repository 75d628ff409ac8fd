// An automation's workflow graph (resend-compat-notes §2.12): steps `{key, type, config}` and
// connections `{from, to, type}`, checked as a whole whenever an automation is written:
// unique keys, exactly one trigger with nothing leading into it, each config of its type's
// shape (step-config.ts), connections between existing steps with a type their source step
// can take, and no cycles, so that every run ends and reaches each step at most once.
// Their shapes (`{key, type, config}` and `{from, to, type?}`, the keys, the types, the limits,
// each type's config) are GRAPH_SCHEMAS', the check of the routes' bodies (request-schema.ts);
// parseGraph judges the rest, which needs the graph as a whole, and what parseStepConfig says
// a config's schema cannot (durations, rule trees).
import { validation } from '../api/errors.js';
import { array, input, type JsonSchema, oneOfValues, string } from '../api/schema.js';
import type { Body } from '../api/validate.js';
import { conditional, parseStepConfig, STEP_CONFIG_SCHEMAS, STEP_TYPES, type StepType } from './step-config.js';

export const CONNECTION_TYPES = ['default', 'condition_met', 'condition_not_met', 'timeout', 'event_received'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

export interface StepDef {
  key: string;
  type: StepType;
  config: Body;
}
export interface ConnectionDef {
  from: string;
  to: string;
  type: ConnectionType;
}
/** A step as GRAPH_SCHEMAS passed it: its config of its type's schema, not yet normalised. */
export interface StepInput {
  key: string;
  type: StepType;
  config?: Body;
}
/** A connection as GRAPH_SCHEMAS passed it. */
export interface ConnectionInput {
  from: string;
  to: string;
  type?: ConnectionType;
}
export interface Graph {
  steps: StepDef[];
  connections: ConnectionDef[];
  /** The trigger step's event_name. */
  triggerEvent: string;
}

const MAX_STEPS = 150;
const MAX_CONNECTIONS = 500;
const KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Which connection types leave a step of each type; wait_for_event's `default` means event_received. */
const OUTGOING: Record<StepType, readonly ConnectionType[]> = {
  trigger: ['default'],
  send_email: ['default'],
  delay: ['default'],
  wait_for_event: ['event_received', 'timeout', 'default'],
  condition: ['condition_met', 'condition_not_met'],
  contact_update: ['default'],
  contact_delete: ['default'],
  add_to_segment: ['default'],
};

const KEY_SCHEMA = string({ pattern: KEY.source, 'x-message': 'be 1 to 100 ASCII letters, digits, `_`, `-`, `.` or `:`' });
const STEP_REF_SCHEMA = string({ pattern: KEY.source, 'x-message': 'be a step key', description: "A step's key." });
/** A step of type T has a config of STEP_CONFIG_SCHEMAS[T] (contact_delete may leave it out). */
const CONFIG_OF_TYPE: JsonSchema[] = STEP_TYPES.map((type) =>
  conditional(
    { properties: { type: { const: type } }, required: ['type'] },
    { ...(type === 'contact_delete' ? {} : { required: ['config'] }), properties: { config: STEP_CONFIG_SCHEMAS[type] } },
  ),
);
/** `steps` and `connections`: the check of the routes' bodies (request-schema.ts) and their docs. */
export const GRAPH_SCHEMAS: Record<'steps' | 'connections', JsonSchema> = {
  steps: array(
    input(
      {
        key: KEY_SCHEMA,
        type: oneOfValues(STEP_TYPES),
        config: { type: 'object', description: "The fields of the step's type: see `allOf`, one schema per type." },
      },
      ['key', 'type'],
      { 'x-message': 'be an object: `{key, type, config}`', allOf: CONFIG_OF_TYPE },
    ),
    { minItems: 1, maxItems: MAX_STEPS, 'x-message': `be an array of 1 to ${MAX_STEPS} steps`, description: 'Exactly one trigger step; keys unique.' },
  ),
  connections: array(
    input({ from: STEP_REF_SCHEMA, to: STEP_REF_SCHEMA, type: oneOfValues(CONNECTION_TYPES, { default: 'default' }) }, ['from', 'to'], {
      'x-message': 'be an object: `{from, to, type?}`',
    }),
    {
      maxItems: MAX_CONNECTIONS,
      'x-message': `be an array of at most ${MAX_CONNECTIONS} connections`,
      description: 'Between existing steps, never into the trigger, without cycles.',
    },
  ),
};

const stepFail = (key: string, type: string) => (message: string) => validation(`Step \`${key}\` (${type}): ${message}`);

/** The graph of checked `steps` and `connections`: configs judged, keys unique, one trigger, connections sound, no cycle. */
export function parseGraph(stepsIn: StepInput[], connectionsIn: ConnectionInput[]): Graph {
  const steps = stepsIn.map(({ key, type, config }, i) => ({ key, type, config: parseStepConfig(type, config ?? {}, `steps[${i}].config`) }));
  const byKey = new Map<string, StepDef>();
  for (const step of steps) {
    if (byKey.has(step.key)) throw validation(`Step \`${step.key}\`: another step has the same key.`);
    byKey.set(step.key, step);
  }
  const triggers = steps.filter((s) => s.type === 'trigger');
  if (triggers.length !== 1) throw validation(`An automation needs exactly one \`trigger\` step; it has ${triggers.length}.`);
  const connections = connectionsIn.map((c, i) => connection(c, i, byKey));
  checkDuplicates(connections);
  checkAcyclic(steps, connections);
  return { steps, connections, triggerEvent: triggers[0]!.config.event_name as string };
}

function connection(raw: ConnectionInput, index: number, byKey: Map<string, StepDef>): ConnectionDef {
  const where = `connections[${index}]`;
  for (const end of ['from', 'to'] as const) {
    if (!byKey.has(raw[end])) throw validation(`The \`${where}.${end}\` field names no step: \`${raw[end]}\`.`);
  }
  const type = raw.type ?? 'default';
  const from = byKey.get(raw.from)!;
  const to = byKey.get(raw.to)!;
  if (!OUTGOING[from.type].includes(type)) {
    throw stepFail(
      from.key,
      from.type,
    )(`its connections must be of type ${OUTGOING[from.type].map((t) => `"${t}"`).join(' | ')}, not "${type}" (\`${where}\`).`);
  }
  if (to.type === 'trigger') throw stepFail(to.key, to.type)(`nothing may lead into the trigger (\`${where}\`).`);
  return { from: from.key, to: to.key, type };
}

function checkDuplicates(connections: ConnectionDef[]): void {
  const seen = new Set<string>();
  for (const c of connections) {
    const id = `${c.from}\u0000${c.to}\u0000${c.type}`;
    if (seen.has(id)) throw validation(`The connection from \`${c.from}\` to \`${c.to}\` (${c.type}) is given twice.`);
    seen.add(id);
  }
}

/** Depth-first search; a step met again while still on the path closes a cycle, which is named. */
function checkAcyclic(steps: StepDef[], connections: ConnectionDef[]): void {
  const next = new Map<string, string[]>(steps.map((s) => [s.key, []]));
  for (const c of connections) next.get(c.from)!.push(c.to);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (key: string): void => {
    state.set(key, 'open');
    path.push(key);
    for (const to of next.get(key)!) {
      if (state.get(to) === 'open') {
        const cycle = [...path.slice(path.indexOf(to)), to].map((k) => `\`${k}\``).join(' → ');
        throw validation(`The connections form a cycle: ${cycle}. Automations must not loop.`);
      }
      if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(key, 'done');
  };
  for (const step of steps) if (!state.has(step.key)) visit(step.key);
}

/** The steps a completed step leads to, following connections of `taken` (see OUTGOING). */
export function successors(connections: ConnectionDef[], from: string, taken: ConnectionType): string[] {
  const types: ConnectionType[] = taken === 'event_received' ? ['event_received', 'default'] : [taken];
  return connections.filter((c) => c.from === from && types.includes(c.type)).map((c) => c.to);
}
