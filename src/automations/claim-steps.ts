// Claiming due steps for the worker: rows of automation_run_steps whose due_at has come
// (pending steps, delays that have ended, waits that have timed out, and claims whose lease
// ran out because their worker died). The steps are leased work (concurrency/leased-work.ts,
// whose contract they keep): taken with FOR UPDATE SKIP LOCKED so nodes share them, due_at
// pushed forward by the lease, and a token stamped that the step's outcome must match
// (advance.ts); if the worker dies, the step comes due again when it is reaped or its lease ends.
import { LeasedWork } from '../concurrency/leased-work.js';
import type { Db } from '../db/database.js';
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

/**
 * The steps as leased work: due_at is the lease, claim_token the token. Every outcome clears
 * the token (advance.ts), so releasing a node's claims leaves a step already decided alone.
 */
export const stepLeases = new LeasedWork({
  table: 'automation_run_steps',
  key: { column: 'id', type: 'uuid' },
  lease: 'due_at',
  token: 'claim_token',
  due: 'due_at <= now()',
  held: 'claim_token IS NOT NULL',
  released: 'due_at = now()',
});

export async function claimDueSteps(db: Db, limit: number, leaseMs: number, nodeId?: string): Promise<ClaimedStep[]> {
  const rows = await stepLeases.claim<{ id: string; run_id: string; key: string; was: ClaimedStep['was'] }>(db, {
    limit,
    leaseMs,
    nodeId,
    order: 'due_at',
    select: 'status AS was',
    set: "status = CASE WHEN t.status = 'pending' THEN 'running' ELSE t.status END, started_at = COALESCE(t.started_at, now())",
    returning: 't.id, t.run_id, t.key, due.was',
  });
  if (rows.length === 0) return [];
  const runs = await db.query<RunRow>(`SELECT ${RUN_ROW_COLUMNS} FROM automation_runs WHERE id = ANY($1::uuid[])`, [[...new Set(rows.map((r) => r.run_id))]]);
  const byId = new Map(runs.map((r) => [r.id, r]));
  return rows
    .filter((r) => byId.has(r.run_id))
    .map((r) => ({ id: r.id, runId: r.run_id, key: r.key, was: r.was, claimToken: r.fence_token, run: byId.get(r.run_id)! }));
}
