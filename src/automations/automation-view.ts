// How automations and their runs read over the API (resend-compat-notes §2.12): list items
// without `object`, single ones with it; a run with the steps it has reached, in that order.
import { restTimestamp } from '../api/format.js';
import { array, boolean, constant, isoTime, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { ConnectionDef, StepDef } from './graph.js';
import { STEP_TYPES, type StepType } from './step-config.js';

export const AUTOMATION_COLUMNS = 'id, name, status, steps, connections, created_at, updated_at';
export const RUN_COLUMNS = 'id, status, started_at, completed_at, created_at';
export const RUN_STEP_COLUMNS = 'key, type, status, started_at, completed_at, output, error, created_at';

/** An automation as AUTOMATION_COLUMNS reads it. */
export interface AutomationRow {
  id: string;
  name: string;
  status: 'enabled' | 'disabled';
  steps: StepDef[];
  connections: ConnectionDef[];
  created_at: Date;
  updated_at: Date;
}
/** A run as RUN_COLUMNS reads it. */
export interface RunSummaryRow {
  id: string;
  status: (typeof RUN_STATUSES)[number];
  started_at: Date;
  completed_at: Date | null;
  created_at: Date;
}
/** A step of a run as RUN_STEP_COLUMNS reads it. */
export interface RunStepRow {
  key: string;
  type: StepType;
  status: (typeof STEP_STATUSES)[number];
  started_at: Date | null;
  completed_at: Date | null;
  output: Record<string, unknown> | null;
  error: { name: string; message: string } | null;
  created_at: Date;
}

/** The views' shapes, for the routes' docs. */
export const AUTOMATION_SUMMARY_SCHEMA = object({
  id: uuid(),
  name: string(),
  status: oneOfValues(['enabled', 'disabled']),
  created_at: restTime(),
  updated_at: restTime(),
});
export const AUTOMATION_SCHEMA = object({
  object: constant('automation'),
  ...AUTOMATION_SUMMARY_SCHEMA.properties,
  steps: array(object({ key: string(), type: string(), config: { type: 'object' } })),
  connections: array(object({ from: string(), to: string(), type: string() })),
});
export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export const RUN_SUMMARY_SCHEMA = object({
  id: uuid(),
  status: oneOfValues(RUN_STATUSES),
  started_at: nullable(restTime()),
  completed_at: nullable(restTime()),
  created_at: restTime(),
});
/** A run step's states (automation_run_steps.status, 0015_automations.sql). */
const STEP_STATUSES = ['pending', 'running', 'waiting', 'completed', 'failed', 'skipped'] as const;
/** What a step records of what it did (execute-step.ts, contact-steps.ts, advance.ts), by step type. */
const STEP_OUTPUT_SCHEMA = object(
  {
    until: isoTime(),
    duration: string(),
    event_name: string(),
    timed_out: boolean(),
    event: string(),
    payload: { type: 'object', description: 'wait_for_event: the payload of the event received.' },
    result: boolean(),
    reason: string(),
    email_id: uuid(),
    to: string(),
    contact_id: uuid(),
    changed: array(string()),
    deleted: boolean(),
    segment_id: uuid(),
  },
  [],
  {
    description:
      'Only the fields of the step’s type: delay and wait_for_event `until`, `duration`, `event_name`, `timed_out`, `event`, `payload`; condition `result`; send_email `email_id`, `to`; contact steps `contact_id`, `changed`, `deleted`, `segment_id`; a skipped step `reason`.',
  },
);
export const RUN_SCHEMA = object({
  object: constant('automation_run'),
  ...RUN_SUMMARY_SCHEMA.properties,
  steps: array(
    object({
      key: string(),
      type: oneOfValues(STEP_TYPES),
      status: oneOfValues(STEP_STATUSES),
      started_at: nullable(restTime()),
      completed_at: nullable(restTime()),
      output: nullable(STEP_OUTPUT_SCHEMA),
      error: nullable(object({ name: string(), message: string() })),
      created_at: restTime(),
    }),
  ),
});

export function automationSummary(row: AutomationRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: restTimestamp(row.created_at)!,
    updated_at: restTimestamp(row.updated_at)!,
  };
}

export function automationDetail(row: AutomationRow) {
  return {
    object: 'automation' as const,
    ...automationSummary(row),
    steps: row.steps,
    connections: row.connections,
  };
}

export function runSummary(row: RunSummaryRow) {
  return {
    id: row.id,
    status: row.status,
    started_at: restTimestamp(row.started_at),
    completed_at: restTimestamp(row.completed_at),
    created_at: restTimestamp(row.created_at)!,
  };
}

export function runDetail(run: RunSummaryRow, steps: RunStepRow[]) {
  return {
    object: 'automation_run' as const,
    ...runSummary(run),
    steps: steps.map((s) => ({
      key: s.key,
      type: s.type,
      status: s.status,
      started_at: restTimestamp(s.started_at),
      completed_at: restTimestamp(s.completed_at),
      output: s.output ?? null,
      error: s.error ?? null,
      created_at: restTimestamp(s.created_at)!,
    })),
  };
}
