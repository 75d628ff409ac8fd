// An automation's workflow graph (resend-compat-notes §2.12): steps `{key, type, config}` and
// connections `{from, to, type}`, checked as a whole whenever an automation is written:
// unique keys, exactly one trigger with nothing leading into it, each config of its type's
// shape (step-config.ts), connections between existing steps with a type their source step
// can take, and no cycles, so that every run ends and reaches each step at most once.
import { missingField, validation } from '../api/errors.js';
import { array, input, type JsonSchema, oneOfValues, string } from '../api/schema.js';
import type { Body } from '../api/validate.js';
import { parseStepConfig, STEP_CONFIG_SCHEMAS, STEP_TYPES, type StepType } from './step-config.js';

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

const KEY_SCHEMA = string({ pattern: KEY.source });
/** `steps` and `connections` as parseGraph reads them, for the routes' docs. */
export const GRAPH_SCHEMAS: Record<'steps' | 'connections', JsonSchema> = {
  steps: array(
    {
      oneOf: STEP_TYPES.map((type) =>
        input(
          { key: KEY_SCHEMA, type: { const: type }, config: STEP_CONFIG_SCHEMAS[type] },
          type === 'contact_delete' ? ['key', 'type'] : ['key', 'type', 'config'],
        ),
      ),
    },
    { minItems: 1, maxItems: MAX_STEPS, description: 'Exactly one trigger step; keys unique.' },
  ),
  connections: array(input({ from: KEY_SCHEMA, to: KEY_SCHEMA, type: oneOfValues(CONNECTION_TYPES, { default: 'default' }) }, ['from', 'to']), {
    maxItems: MAX_CONNECTIONS,
    description: 'Between existing steps, never into the trigger, without cycles.',
  }),
};

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);
const stepFail = (key: string, type: string) => (message: string) => validation(`Step \`${key}\` (${type}): ${message}`);

export function parseGraph(stepsRaw: unknown, connectionsRaw: unknown): Graph {
  if (stepsRaw === undefined || stepsRaw === null) throw missingField('steps');
  if (connectionsRaw === undefined || connectionsRaw === null) throw missingField('connections');
  if (!Array.isArray(stepsRaw) || stepsRaw.length === 0 || stepsRaw.length > MAX_STEPS) {
    throw validation(`The \`steps\` field must be an array of 1 to ${MAX_STEPS} steps.`);
  }
  if (!Array.isArray(connectionsRaw) || connectionsRaw.length > MAX_CONNECTIONS) {
    throw validation(`The \`connections\` field must be an array of at most ${MAX_CONNECTIONS} connections.`);
  }
  const steps = stepsRaw.map(parseStep);
  const byKey = new Map<string, StepDef>();
  for (const step of steps) {
    if (byKey.has(step.key)) throw validation(`Step \`${step.key}\`: another step has the same key.`);
    byKey.set(step.key, step);
  }
  const triggers = steps.filter((s) => s.type === 'trigger');
  if (triggers.length !== 1) throw validation(`An automation needs exactly one \`trigger\` step; it has ${triggers.length}.`);
  const connections = connectionsRaw.map((c, i) => parseConnection(c, i, byKey));
  checkDuplicates(connections);
  checkAcyclic(steps, connections);
  return { steps, connections, triggerEvent: triggers[0]!.config.event_name as string };
}

function parseStep(raw: unknown, index: number): StepDef {
  if (!isObject(raw)) throw validation(`The \`steps[${index}]\` field must be an object: \`{key, type, config}\`.`);
  for (const field of Object.keys(raw)) {
    if (!['key', 'type', 'config'].includes(field)) throw validation(`Unknown field \`steps[${index}].${field}\`.`);
  }
  if (typeof raw.key !== 'string' || !KEY.test(raw.key)) {
    throw validation(`The \`steps[${index}].key\` field must be 1 to 100 ASCII letters, digits, \`_\`, \`-\`, \`.\` or \`:\`.`);
  }
  const key = raw.key;
  if (typeof raw.type !== 'string' || !STEP_TYPES.includes(raw.type as StepType)) {
    throw validation(`Step \`${key}\`: \`type\` must be one of ${STEP_TYPES.map((t) => `"${t}"`).join(' | ')}.`);
  }
  const type = raw.type as StepType;
  return { key, type, config: parseStepConfig(type, raw.config ?? (type === 'contact_delete' ? {} : undefined), stepFail(key, type)) };
}

function parseConnection(raw: unknown, index: number, byKey: Map<string, StepDef>): ConnectionDef {
  const where = `connections[${index}]`;
  if (!isObject(raw)) throw validation(`The \`${where}\` field must be an object: \`{from, to, type?}\`.`);
  for (const field of Object.keys(raw)) {
    if (!['from', 'to', 'type'].includes(field)) throw validation(`Unknown field \`${where}.${field}\`.`);
  }
  for (const end of ['from', 'to'] as const) {
    if (typeof raw[end] !== 'string') throw validation(`The \`${where}.${end}\` field must be a step key.`);
    if (!byKey.has(raw[end] as string)) throw validation(`The \`${where}.${end}\` field names no step: \`${raw[end]}\`.`);
  }
  const type = (raw.type ?? 'default') as ConnectionType;
  if (typeof type !== 'string' || !CONNECTION_TYPES.includes(type)) {
    throw validation(`The \`${where}.type\` field must be one of ${CONNECTION_TYPES.map((t) => `"${t}"`).join(' | ')}.`);
  }
  const from = byKey.get(raw.from as string)!;
  const to = byKey.get(raw.to as string)!;
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
