// The state changes of a run, each inside the caller's transaction: a step waits, completes
// (and the run moves on along the connections its outcome takes) or fails (and the run with
// it); a run whose steps are all done is completed.
//
// Exactly once: a step's outcome is written only while the writer still holds it: the
// worker's claim token (claim-steps.ts), or, for an event arriving at a waiting step
// (ingest-events.ts), the step still waiting. Otherwise StaleStep is thrown and the caller's
// transaction rolls back, with whatever the step did in it (the email of a send_email step
// is written in that same transaction: send-email-step.ts).
// Lock order: the run row first, then its step rows (stop-automation.ts does the same).
import crypto from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { successors, type ConnectionDef, type ConnectionType, type StepDef } from './graph.js';
import type { RunContext } from './run-context.js';

export interface RunRow {
  id: string;
  automation_id: string;
  account_id: string;
  contact_id: string;
  steps: StepDef[];
  connections: ConnectionDef[];
  context: RunContext;
  status: string;
}

/** How the writer holds the step: by the worker's claim, or by finding it still waiting. */
export type Guard = { claimToken: string } | { waiting: true };

/** The step was taken from the writer (cancelled, deleted, timed out, or claimed again). */
export class StaleStep extends Error {
  constructor() {
    super('the automation step changed hands; nothing recorded');
  }
}

export const RUN_ROW_COLUMNS = 'id, automation_id, account_id, contact_id, steps, connections, context, status';

function guardSql(guard: Guard, param: number): { sql: string; params: unknown[] } {
  return 'claimToken' in guard ? { sql: `claim_token = $${param}`, params: [guard.claimToken] } : { sql: `status = 'waiting'`, params: [] };
}

/** Locks the run; a run no longer running (cancelled, failed) or gone makes the step stale. */
async function lockRunningRun(q: Queryable, runId: string): Promise<RunRow> {
  const run = await q.one<RunRow>(`SELECT ${RUN_ROW_COLUMNS} FROM automation_runs WHERE id = $1 FOR UPDATE`, [runId]);
  if (run?.status !== 'running') throw new StaleStep();
  return run;
}

interface Outcome {
  output: Record<string, unknown>;
  /** The connections to follow; null ends this branch. */
  taken: ConnectionType | null;
  /** `skipped`: not carried out (a send_email to an unsubscribed contact), the run goes on. */
  status?: 'completed' | 'skipped';
  /** A wait_for_event step's event, kept for `wait_events.<name>.*` in later steps. */
  received?: { name: string; payload: unknown };
}

export async function completeStep(q: Queryable, stepId: string, runId: string, guard: Guard, outcome: Outcome): Promise<void> {
  const run = await lockRunningRun(q, runId);
  const g = guardSql(guard, 4);
  const done = await q.query<{ key: string }>(
    `UPDATE automation_run_steps
        SET status = $2, output = $3, completed_at = now(), due_at = NULL, claim_token = NULL, wait_event = NULL
      WHERE id = $1 AND ${g.sql} RETURNING key`,
    [stepId, outcome.status ?? 'completed', JSON.stringify(outcome.output), ...g.params],
  );
  if (done.length === 0) throw new StaleStep();
  if (outcome.received) {
    await q.query(
      `UPDATE automation_runs
          SET context = jsonb_set(context, '{wait_events}', COALESCE(context->'wait_events', '{}') || jsonb_build_object($2::text, $3::jsonb))
        WHERE id = $1`,
      [runId, outcome.received.name, JSON.stringify(outcome.received.payload)],
    );
  }
  const next = outcome.taken ? successors(run.connections, done[0]!.key, outcome.taken) : [];
  await reachSteps(q, run, next);
  await finishRunIfDone(q, runId);
}

/** The step failed for good: so does its run, and its other unfinished steps are skipped. */
export async function failStep(q: Queryable, stepId: string, runId: string, guard: Guard, error: { name: string; message: string }): Promise<void> {
  await lockRunningRun(q, runId);
  const g = guardSql(guard, 3);
  const failed = await q.query(
    `UPDATE automation_run_steps
        SET status = 'failed', error = $2, completed_at = now(), due_at = NULL, claim_token = NULL, wait_event = NULL
      WHERE id = $1 AND ${g.sql} RETURNING id`,
    [stepId, JSON.stringify(error), ...g.params],
  );
  if (failed.length === 0) throw new StaleStep();
  await q.query(`UPDATE automation_runs SET status = 'failed', completed_at = now() WHERE id = $1`, [runId]);
  await q.query(
    `UPDATE automation_run_steps SET status = 'skipped', due_at = NULL, claim_token = NULL, completed_at = now()
      WHERE run_id = $1 AND status IN ('pending', 'running', 'waiting')`,
    [runId],
  );
}

/**
 * The step waits: until `afterMs` from now (a delay's end, a wait's timeout) or, with null, for
 * its event only. Times are the database's, so every node agrees on them.
 */
export async function waitStep(
  q: Queryable,
  stepId: string,
  runId: string,
  guard: Guard,
  wait: { afterMs: number | null; event?: string; output: Record<string, unknown> },
): Promise<void> {
  await lockRunningRun(q, runId);
  const g = guardSql(guard, 5);
  const waiting = await q.query(
    `UPDATE automation_run_steps
        SET status = 'waiting', claim_token = NULL, wait_event = $3,
            due_at = CASE WHEN $2::float8 IS NULL THEN NULL ELSE now() + $2::float8 * interval '1 millisecond' END,
            output = CASE WHEN $2::float8 IS NULL THEN $4::jsonb
                          ELSE $4::jsonb || jsonb_build_object('until', now() + $2::float8 * interval '1 millisecond') END
      WHERE id = $1 AND ${g.sql} RETURNING id`,
    [stepId, wait.afterMs, wait.event ?? null, JSON.stringify(wait.output), ...g.params],
  );
  if (waiting.length === 0) throw new StaleStep();
}

/** Adds the steps a run has just reached, due now; a step reached twice (two branches joining) runs once. */
async function reachSteps(q: Queryable, run: Pick<RunRow, 'id' | 'account_id' | 'steps'>, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  const types = keys.map((k) => run.steps.find((s) => s.key === k)!.type);
  await q.query(
    `INSERT INTO automation_run_steps (id, run_id, account_id, key, type, position, status, due_at)
     SELECT v.id, $1, $2, v.key, v.type,
            (SELECT COALESCE(max(position), 0) FROM automation_run_steps WHERE run_id = $1) + v.n, 'pending', now()
       FROM unnest($3::uuid[], $4::text[], $5::text[]) WITH ORDINALITY AS v(id, key, type, n)
     ON CONFLICT (run_id, key) DO NOTHING`,
    [run.id, run.account_id, keys.map(() => crypto.randomUUID()), keys, types],
  );
}

async function finishRunIfDone(q: Queryable, runId: string): Promise<void> {
  await q.query(
    `UPDATE automation_runs SET status = 'completed', completed_at = now()
      WHERE id = $1 AND status = 'running'
        AND NOT EXISTS (SELECT 1 FROM automation_run_steps WHERE run_id = $1 AND status IN ('pending', 'running', 'waiting'))`,
    [runId],
  );
}
