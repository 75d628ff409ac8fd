// Claiming due steps for the worker: rows of automation_run_steps whose due_at has come
// (pending steps, delays that have ended, waits that have timed out, and claims whose lease
// ran out because their worker died), taken with FOR UPDATE SKIP LOCKED so nodes share them.
// A claim pushes due_at forward by the lease and stamps a token that the step's outcome must
// match (advance.ts); if the worker dies, the step comes due again when the lease ends.
import crypto from 'node:crypto';
import type { Db, Queryable } from '../db/database.js';
import { RUN_ROW_COLUMNS, type RunRow } from './advance.js';

export interface ClaimedStep {
  id: string;
  runId: string;
  key: string;
  /** The status before the claim: `waiting` means a delay ended or a wait timed out. */
  was: 'pending' | 'running' | 'waiting';
  claimToken: string;
  run: RunRow;
}

export async function claimDueSteps(db: Db, limit: number, leaseMs: number, nodeId?: string): Promise<ClaimedStep[]> {
  const token = crypto.randomUUID();
  const rows = await db.query<{ id: string; run_id: string; key: string; was: ClaimedStep['was'] }>(
    `WITH due AS (
       SELECT id, status AS was FROM automation_run_steps
        WHERE due_at <= now() ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     UPDATE automation_run_steps s
        SET due_at = now() + $2::float8 * interval '1 millisecond', claim_token = $3, claimed_by = $4,
            status = CASE WHEN s.status = 'pending' THEN 'running' ELSE s.status END,
            started_at = COALESCE(s.started_at, now())
       FROM due WHERE s.id = due.id
     RETURNING s.id, s.run_id, s.key, due.was`,
    [limit, leaseMs, token, nodeId ?? null],
  );
  if (rows.length === 0) return [];
  const runs = await db.query<RunRow>(`SELECT ${RUN_ROW_COLUMNS} FROM automation_runs WHERE id = ANY($1::uuid[])`, [[...new Set(rows.map((r) => r.run_id))]]);
  const byId = new Map(runs.map((r) => [r.id, r]));
  return rows
    .filter((r) => byId.has(r.run_id))
    .map((r) => ({ id: r.id, runId: r.run_id, key: r.key, was: r.was, claimToken: token, run: byId.get(r.run_id)! }));
}

/**
 * Makes the steps that nodes presumed dead had claimed due at once (cluster/node-presence.ts).
 * Clearing the claim token fences the old claim's outcome (advance.ts), should its node only
 * have been stalled; every outcome clears the token, so a step already decided is left alone.
 */
export async function releaseStepsOfNodes(q: Queryable, nodeIds: string[]): Promise<number> {
  const released = await q.query(
    `UPDATE automation_run_steps SET due_at = now(), claim_token = NULL, claimed_by = NULL
      WHERE claimed_by = ANY($1::uuid[]) AND claim_token IS NOT NULL
  RETURNING id`,
    [nodeIds],
  );
  return released.length;
}
