// The inbox agent's jobs (0049_inbox_agent_jobs.sql), this file their one writer: queued in the
// receiving transaction when received mail starts a thread in an inbox whose agent drafts
// replies. Jobs are leased work (concurrency/leased-work.ts, whose contract they keep): claimed
// by the worker role with FOR UPDATE SKIP LOCKED under a lease (due_at pushed forward) and a
// claim token; finished with that token, so a node that stalled past its lease (or was presumed
// dead) cannot record an outcome over another's. A thread has at most one job (UNIQUE), and a job
// at most one draft: drafting twice would need two outcomes with the same token.
import crypto from 'node:crypto';
import { LeasedWork } from '../concurrency/leased-work.js';
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

/** The jobs as leased work: due_at is the lease, claim_token the token. */
export const agentJobLeases = new LeasedWork({
  table: 'inbox_agent_jobs',
  key: { column: 'id', type: 'uuid' },
  lease: 'due_at',
  token: 'claim_token',
  due: 'due_at <= now()',
  held: 'claim_token IS NOT NULL',
  released: 'due_at = now(), updated_at = now()',
});

/** Claims up to `limit` due jobs for `leaseMs`, counting the attempt now: a request that kills its node still counts. */
export async function claimAgentJobs(db: Db, limit: number, leaseMs: number, nodeId?: string): Promise<AgentJob[]> {
  const rows = await agentJobLeases.claim<{ id: string; thread_id: string; inbox_id: string; account_id: string; message_id: string; attempts: number }>(db, {
    limit,
    leaseMs,
    nodeId,
    order: 'due_at',
    set: 'attempts = t.attempts + 1, updated_at = now()',
    returning: 't.id, t.thread_id, t.inbox_id, t.account_id, t.message_id, t.attempts',
  });
  return rows.map((r) => ({
    id: r.id,
    threadId: r.thread_id,
    inboxId: r.inbox_id,
    accountId: r.account_id,
    messageId: r.message_id,
    attempts: r.attempts,
    claimToken: r.fence_token,
  }));
}

const claimOf = (job: AgentJob) => [{ key: job.id, token: job.claimToken }];

/**
 * Marks the job drafted with `draftId`, in the caller's transaction; false when the claim is no
 * longer this one's (its lease ran out and another node took the job): then nothing is written.
 */
export async function markDrafted(q: Queryable, job: AgentJob, draftId: string): Promise<boolean> {
  const rows = await agentJobLeases.settle(q, claimOf(job), {
    set: "status = 'drafted', draft_id = $3, due_at = NULL, last_error = NULL, updated_at = now()",
    params: [draftId],
  });
  return rows.length === 1;
}

/** The agent no longer drafts replies (its action was removed since the mail came): the job ends. */
export async function markSkipped(db: Db, job: AgentJob): Promise<void> {
  await agentJobLeases.settle(db, claimOf(job), { set: "status = 'skipped', due_at = NULL, updated_at = now()" });
}

/** A failed attempt: due again after `retryInMs`, or failed for good when undefined. */
export async function markAttemptFailed(db: Db, job: AgentJob, error: string, retryInMs: number | undefined): Promise<void> {
  await agentJobLeases.settle(db, claimOf(job), {
    set: `status = CASE WHEN $3::float8 IS NULL THEN 'failed' ELSE 'pending' END,
          due_at = now() + $3::float8 * interval '1 millisecond', last_error = $4, updated_at = now()`,
    params: [retryInMs ?? null, error],
  });
}
