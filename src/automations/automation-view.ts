// How automations and their runs read over the API (resend-compat-notes §2.12): list items
// without `object`, single ones with it; a run with the steps it has reached, in that order.
import { restTimestamp } from '../api/format.js';
import { array, constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Row } from '../db/database.js';

export const AUTOMATION_COLUMNS = 'id, name, status, steps, connections, created_at, updated_at';
export const RUN_COLUMNS = 'id, status, started_at, completed_at, created_at';
export const RUN_STEP_COLUMNS = 'key, type, status, started_at, completed_at, output, error, created_at';

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
export const RUN_SCHEMA = object({
  object: constant('automation_run'),
  ...RUN_SUMMARY_SCHEMA.properties,
  steps: array(
    object({
      key: string(),
      type: string(),
      status: string(),
      started_at: nullable(restTime()),
      completed_at: nullable(restTime()),
      output: nullable({ type: 'object' }),
      error: nullable({ type: 'object' }),
      created_at: restTime(),
    }),
  ),
});

export function automationSummary(row: Row) {
  return {
    id: row.id as string,
    name: row.name as string,
    status: row.status as 'enabled' | 'disabled',
    created_at: restTimestamp(row.created_at)!,
    updated_at: restTimestamp(row.updated_at)!,
  };
}

export function automationDetail(row: Row) {
  return {
    object: 'automation' as const,
    ...automationSummary(row),
    steps: row.steps as unknown[],
    connections: row.connections as unknown[],
  };
}

export function runSummary(row: Row) {
  return {
    id: row.id as string,
    status: row.status as string,
    started_at: restTimestamp(row.started_at),
    completed_at: restTimestamp(row.completed_at),
    created_at: restTimestamp(row.created_at)!,
  };
}

export function runDetail(run: Row, steps: Row[]) {
  return {
    object: 'automation_run' as const,
    ...runSummary(run),
    steps: steps.map((s) => ({
      key: s.key as string,
      type: s.type as string,
      status: s.status as string,
      started_at: restTimestamp(s.started_at),
      completed_at: restTimestamp(s.completed_at),
      output: (s.output as Record<string, unknown> | null) ?? null,
      error: (s.error as Record<string, unknown> | null) ?? null,
      created_at: restTimestamp(s.created_at)!,
    })),
  };
}
