// An automation's steps drawn as a graph: the validated graph the API returns (steps and the
// connections between them, src/automations/graph.ts: one trigger, no cycles) laid out in
// layers by their longest distance from the trigger, one box per step, one arrow per
// connection labelled with its branch ("yes", "no", "timeout", …). No graph library: a DAG of at
// most 150 steps lays out in a few lines. The drawing is an image to a screen reader; the same
// graph is written out beside it as an ordered list of the steps and where each leads.
// The editor (pages/automation-editor.tsx) draws its draft with it: a step is picked by its
// button in the list (or by a click on its box), the picked one outlined, one with a problem marked.
import { Fragment } from 'react';
import type { Answer } from './api';

type StepDef = Answer<'/automations/{id}'>['steps'][number];
type ConnectionDef = Answer<'/automations/{id}'>['connections'][number];
/** A run's state of a step, when the graph is drawn for a run (absent: not reached). */
export interface StepState {
  status: string;
  /** A short phrase: "waiting until 09:00", "failed: template not found". */
  detail?: string;
}

const NODE_W = 200;
const NODE_H = 56;
/** A box with its run's state on a third line. */
const NODE_H_STATE = 74;
const GAP_X = 32;
const GAP_Y = 64;
const PAD = 16;
/**
 * The drawing shrinks to the width it is given (a phone's), but no further than this: below it
 * the boxes' words are too small to read, and a graph that wide scrolls in its own box instead
 * (the list beside it says the same in words).
 */
const MIN_SCALE = 0.6;

const BRANCH_LABELS: Record<string, string> = {
  default: '',
  condition_met: 'yes',
  condition_not_met: 'no',
  timeout: 'timeout',
  event_received: 'event received',
};

export const STEP_NAMES: Record<string, string> = {
  trigger: 'Trigger',
  send_email: 'Send email',
  delay: 'Delay',
  wait_for_event: 'Wait for event',
  condition: 'Condition',
  contact_update: 'Update contact',
  contact_delete: 'Delete contact',
  add_to_segment: 'Add to segment',
};

type Rule = { type?: string; field?: string; operator?: string; value?: unknown; rules?: Rule[] };

function describeRule(rule: Rule): string {
  if (rule.rules) return rule.rules.map((r) => (r.rules ? `(${describeRule(r)})` : describeRule(r))).join(` ${rule.type} `);
  const operator = (rule.operator ?? '').replace(/_/g, ' ');
  return rule.value === undefined || rule.value === null ? `${rule.field} ${operator}` : `${rule.field} ${operator} ${JSON.stringify(rule.value)}`;
}

/** What a step does, in a line; `names` names the templates and segments it refers to by id. */
function describeStep(step: StepDef, names?: Map<string, string>): string {
  const c = step.config ?? {};
  const named = (id: unknown) => (typeof id === 'string' && names?.has(id) ? `“${names.get(id)}”` : String(id));
  switch (step.type) {
    case 'trigger':
      return `when the event “${c.event_name}” is sent`;
    case 'send_email': {
      const template = (c.template as { id?: string } | undefined)?.id;
      return `send the template ${named(template)}${c.subject ? ` with the subject “${c.subject}”` : ''}`;
    }
    case 'delay':
      return `wait ${c.duration}`;
    case 'wait_for_event':
      return `wait for the event “${c.event_name}”${c.timeout ? `, at most ${c.timeout}` : ''}${c.filter_rule ? ` where ${describeRule(c.filter_rule as Rule)}` : ''}`;
    case 'condition':
      return `if ${describeRule(c as Rule)}`;
    case 'contact_update':
      return `update the contact: ${Object.keys(c).join(', ')}`;
    case 'contact_delete':
      return 'delete the contact';
    case 'add_to_segment':
      return `add the contact to the segment ${named(c.segment_id)}`;
    default:
      return step.type;
  }
}

interface Layout {
  positions: Map<string, { x: number; y: number }>;
  order: StepDef[];
  width: number;
  height: number;
}

/** Layers by longest path from the roots (Kahn's order); within a layer, by the mean position of the step's parents. */
function layout(steps: StepDef[], connections: ConnectionDef[], nodeH: number): Layout {
  const incoming = new Map(steps.map((s) => [s.key, 0]));
  const next = new Map<string, string[]>(steps.map((s) => [s.key, []]));
  const parents = new Map<string, string[]>(steps.map((s) => [s.key, []]));
  for (const c of connections) {
    if (!next.has(c.from) || !incoming.has(c.to)) continue;
    next.get(c.from)!.push(c.to);
    parents.get(c.to)!.push(c.from);
    incoming.set(c.to, incoming.get(c.to)! + 1);
  }
  const layer = new Map<string, number>();
  const queue = steps.filter((s) => incoming.get(s.key) === 0).map((s) => s.key);
  const order: string[] = [];
  for (const key of queue) layer.set(key, 0);
  while (queue.length > 0) {
    const key = queue.shift()!;
    order.push(key);
    for (const to of next.get(key)!) {
      layer.set(to, Math.max(layer.get(to) ?? 0, layer.get(key)! + 1));
      incoming.set(to, incoming.get(to)! - 1);
      if (incoming.get(to) === 0) queue.push(to);
    }
  }
  // A cycle cannot pass the API's checks; should one ever arrive, its steps go last, not lost.
  for (const s of steps) {
    if (layer.has(s.key)) continue;
    order.push(s.key);
    layer.set(s.key, Math.max(0, ...layer.values()) + 1);
  }
  const layers: string[][] = [];
  for (const key of order) (layers[layer.get(key)!] ??= []).push(key);
  const column = new Map<string, number>();
  for (const keys of layers) {
    if (!keys) continue;
    const weight = (key: string) => {
      const ps = parents.get(key)!.filter((p) => column.has(p));
      return ps.length ? ps.reduce((sum, p) => sum + column.get(p)!, 0) / ps.length : 0;
    };
    keys.sort((a, b) => weight(a) - weight(b));
    for (const [i, key] of keys.entries()) column.set(key, i);
  }
  // Each step as close as it can be under the mean of its parents, its layer's order kept,
  // never overlapping; then the whole drawing moved to start at the padding.
  const x = new Map<string, number>();
  for (const keys of layers) {
    if (!keys) continue;
    let next = Number.NEGATIVE_INFINITY;
    for (const [i, key] of keys.entries()) {
      const ps = parents.get(key)!.filter((p) => x.has(p));
      const wanted = ps.length ? ps.reduce((sum, p) => sum + x.get(p)!, 0) / ps.length : i * (NODE_W + GAP_X);
      x.set(key, Math.max(wanted, next));
      next = x.get(key)! + NODE_W + GAP_X;
    }
  }
  const left = Math.min(...x.values());
  const right = Math.max(...x.values()) + NODE_W;
  const width = right - left + 2 * PAD;
  const positions = new Map<string, { x: number; y: number }>();
  layers.forEach((keys, depth) => {
    for (const key of keys ?? []) positions.set(key, { x: x.get(key)! - left + PAD, y: PAD + depth * (nodeH + GAP_Y) });
  });
  const byKey = new Map(steps.map((s) => [s.key, s]));
  return { positions, order: order.map((k) => byKey.get(k)!), width, height: layers.length * (nodeH + GAP_Y) - GAP_Y + 2 * PAD };
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function AutomationGraph({
  steps,
  connections,
  states,
  title,
  selected,
  problems,
  names,
  onSelect,
}: {
  steps: StepDef[];
  connections: ConnectionDef[];
  states?: Map<string, StepState>;
  title: string;
  /** The key of the step being edited. */
  selected?: string;
  /** What is wrong with a step, by its key, said under it in the list; `severe`: it cannot be saved so. */
  problems?: Map<string, { message: string; severe: boolean }>;
  /** The names of templates and segments by id (and alias), for the list's words. */
  names?: Map<string, string>;
  /** Makes each step of the list a button that picks it. */
  onSelect?: (key: string) => void;
}) {
  const nodeH = states ? NODE_H_STATE : NODE_H;
  const { positions, order, width, height } = layout(steps, connections, nodeH);
  const leaving = (key: string) => connections.filter((c) => c.from === key);
  return (
    <div className="graph">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide graph scrolls, and must scroll by keyboard too */}
      <section className="graph-scroll" tabIndex={0} aria-label={`${title}: drawing`}>
        <svg
          width={width}
          height={height}
          viewBox={`0 0 ${width} ${height}`}
          style={{ maxWidth: width, minWidth: Math.round(width * MIN_SCALE) }}
          role="img"
          aria-label={`${title}: ${steps.length} steps, described in the list that follows`}
        >
          <defs>
            <marker id="graph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" className="graph-arrowhead" />
            </marker>
          </defs>
          {connections.map((c) => {
            const from = positions.get(c.from);
            const to = positions.get(c.to);
            if (!from || !to) return null;
            const x1 = from.x + NODE_W / 2;
            const y1 = from.y + nodeH;
            const x2 = to.x + NODE_W / 2;
            const y2 = to.y;
            const mid = (y1 + y2) / 2;
            const label = BRANCH_LABELS[c.type] ?? c.type;
            return (
              <g key={`${c.from}>${c.to}>${c.type}`} className={`graph-edge edge-${c.type}`}>
                <path d={`M ${x1} ${y1} C ${x1} ${mid}, ${x2} ${mid}, ${x2} ${y2}`} markerEnd="url(#graph-arrow)" />
                {label && (
                  <text x={(x1 + x2) / 2} y={mid} dy="0.35em" textAnchor="middle" className="graph-edge-label">
                    {label}
                  </text>
                )}
              </g>
            );
          })}
          {steps.map((s) => {
            const p = positions.get(s.key)!;
            const state = states ? (states.get(s.key) ?? { status: 'not_reached' }) : undefined;
            const marks = `${state ? ` state-${state.status}` : ''}${s.key === selected ? ' selected' : ''}${problems?.has(s.key) ? (problems.get(s.key)!.severe ? ' problem' : ' warning') : ''}`;
            return (
              // biome-ignore lint/a11y/noStaticElementInteractions: a shortcut for the mouse; the list beside it has a button per step
              <g
                key={s.key}
                className={`graph-node type-${s.type}${marks}${onSelect ? ' pickable' : ''}`}
                transform={`translate(${p.x} ${p.y})`}
                onClick={onSelect && (() => onSelect(s.key))}
              >
                <rect width={NODE_W} height={nodeH} rx="8" />
                <text x="12" y="22" className="graph-node-type">
                  {STEP_NAMES[s.type] ?? s.type}
                </text>
                <text x="12" y="42" className="graph-node-key">
                  {clip(s.key, 26)}
                </text>
                {state && (
                  <text x="12" y="61" className="graph-node-state">
                    {state.status.replace('_', ' ')}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </section>
      <ol className="graph-steps" aria-label={`${title}: steps`}>
        {order.map((s) => {
          const state = states?.get(s.key);
          const out = leaving(s.key);
          const problem = problems?.get(s.key);
          return (
            <li key={s.key} className={s.key === selected ? 'selected' : undefined}>
              {onSelect ? (
                <button type="button" className="step-pick" aria-current={s.key === selected || undefined} onClick={() => onSelect(s.key)}>
                  <span className="visually-hidden">Edit step </span>
                  {s.key}
                </button>
              ) : (
                <strong>{s.key}</strong>
              )}{' '}
              ({STEP_NAMES[s.type] ?? s.type}): {describeStep(s, names)}.
              {states && (
                <span className={`step-state state-${state?.status ?? 'not_reached'}`}> {state ? (state.detail ?? state.status) : 'Not reached.'}</span>
              )}
              {out.length > 0 && (
                <span className="hint block">
                  {out.map((c, i) => (
                    <Fragment key={`${c.to}>${c.type}`}>
                      {i > 0 && '; '}
                      {BRANCH_LABELS[c.type] ? `${BRANCH_LABELS[c.type]}: ` : ''}then {c.to}
                    </Fragment>
                  ))}
                </span>
              )}
              {problem && <span className={`step-problem block${problem.severe ? '' : ' warning'}`}>{problem.message}</span>}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
