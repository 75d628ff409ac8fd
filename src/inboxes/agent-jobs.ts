// The inbox agent's jobs (0049_inbox_agent_jobs.sql), this file their one writer: queued in the
// receiving transaction when received mail starts a thread in an inbox whose agent drafts
// replies; claimed by the worker role with FOR UPDATE SKIP LOCKED under a lease (due_at pushed
// forward) and a claim token; finished with that token, so a node that stalled past its lease
// cannot record an outcome over another's. A thread has at most one job (UNIQUE), and a job
// at most one draft: drafting twice would need two outcomes with the same token.
import crypto from 'node:crypto';
import type { Db, Queryable } from '../db/database.js';

/** The action of the SDK's INBOX_AGENT_ACTIONS that lets the agent draft replies. */
export const DRAFT_REPLY = 'draft_reply';

export interface AgentJob {
  id: string;
  threadId: string;
  inboxId: string;
  accountId: string;
  /** The inbox message that started the thread: the draft answers it. */
  messageId: string;
  /** Attempts so far, this one included. */
  attempts: number;
  claimToken: string;
}

/** Queues a draft for a thread received mail just started, if the inbox's agent drafts replies. */
export async function queueAgentDraft(q: Queryable, inboxId: string, filed: { threadId: string; messageId: string }): Promise<void> {
  await q.query(
    `INSERT INTO inbox_agent_jobs (id, thread_id, inbox_id, account_id, message_id, due_at)
     SELECT $1, $2, i.id, i.account_id, $3, now() FROM inboxes i WHERE i.id = $4 AND $5 = ANY(i.agent_actions)
     ON CONFLICT (thread_id) DO NOTHING`,
    [crypto.randomUUID(), filed.threadId, filed.messageId, inboxId, DRAFT_REPLY],
  );
}

/** Claims up to `limit` due jobs for `leaseMs`, counting the attempt now: a request that kills its node still counts. */
export async function claimAgentJobs(db: Db, limit: number, leaseMs: number, nodeId?: string): Promise<AgentJob[]> {
  const token = crypto.randomUUID();
  const rows = await db.query<{ id: string; thread_id: string; inbox_id: string; account_id: string; message_id: string; attempts: number }>(
    `WITH due AS (
       SELECT id FROM inbox_agent_jobs WHERE due_at <= now() ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     UPDATE inbox_agent_jobs j
        SET due_at = now() + $2::float8 * interval '1 millisecond', claim_token = $3, claimed_by = $4,
            attempts = j.attempts + 1, updated_at = now()
       FROM due WHERE j.id = due.id
     RETURNING j.id, j.thread_id, j.inbox_id, j.account_id, j.message_id, j.attempts`,
    [limit, leaseMs, token, nodeId ?? null],
  );
  return rows.map((r) => ({
    id: r.id,
    threadId: r.thread_id,
    inboxId: r.inbox_id,
    accountId: r.account_id,
    messageId: r.message_id,
    attempts: r.attempts,
    claimToken: token,
  }));
}

/**
 * Marks the job drafted with `draftId`, in the caller's transaction; false when the claim is no
 * longer this one's (its lease ran out and another node took the job): then nothing is written.
 */
export async function markDrafted(q: Queryable, job: AgentJob, draftId: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE inbox_agent_jobs SET status = 'drafted', draft_id = $3, due_at = NULL, claim_token = NULL, claimed_by = NULL,
            last_error = NULL, updated_at = now()
      WHERE id = $1 AND claim_token = $2 RETURNING id`,
    [job.id, job.claimToken, draftId],
  );
  return rows.length === 1;
}

/** The agent no longer drafts replies (its action was removed since the mail came): the job ends. */
export async function markSkipped(db: Db, job: AgentJob): Promise<void> {
  await db.query(
    `UPDATE inbox_agent_jobs SET status = 'skipped', due_at = NULL, claim_token = NULL, claimed_by = NULL, updated_at = now()
      WHERE id = $1 AND claim_token = $2`,
    [job.id, job.claimToken],
  );
}

/** A failed attempt: due again after `retryInMs`, or failed for good when undefined. */
export async function markAttemptFailed(db: Db, job: AgentJob, error: string, retryInMs: number | undefined): Promise<void> {
  await db.query(
    `UPDATE inbox_agent_jobs
        SET status = CASE WHEN $3::float8 IS NULL THEN 'failed' ELSE 'pending' END,
            due_at = now() + $3::float8 * interval '1 millisecond',
            claim_token = NULL, claimed_by = NULL, last_error = $4, updated_at = now()
      WHERE id = $1 AND claim_token = $2`,
    [job.id, job.claimToken, retryInMs ?? null, error],
  );
}

/** Makes the jobs that nodes presumed dead had claimed due at once (cluster/node-presence.ts); clearing the token fences their outcome. */
export async function releaseAgentJobsOfNodes(q: Queryable, nodeIds: string[]): Promise<number> {
  const released = await q.query(
    `UPDATE inbox_agent_jobs SET due_at = now(), claim_token = NULL, claimed_by = NULL, updated_at = now()
      WHERE claimed_by = ANY($1::uuid[]) AND claim_token IS NOT NULL RETURNING id`,
    [nodeIds],
  );
  return released.length;
}
