-- The inbox agent's work (src/inboxes/agent-*.ts): one job per thread that received mail
-- started in an inbox whose agent may draft replies, written in the receiving transaction
-- when a model endpoint is configured (POSTLINE_AGENT_URL). The worker role claims due jobs
-- (SKIP LOCKED, a lease in due_at and a claim token that fences a stalled node's outcome),
-- asks the model and stores its answer as a draft of the thread. Valid on PostgreSQL 15 and 18.
--
-- States: pending (due_at set: waiting for its turn or its next retry, or claimed until
-- due_at), drafted (draft_id set), skipped (the agent no longer drafts replies), failed (every
-- attempt failed: last_error says why). One job per thread: a thread is never drafted twice.
CREATE TABLE inbox_agent_jobs (
  id             uuid PRIMARY KEY,
  thread_id      uuid NOT NULL UNIQUE REFERENCES inbox_threads (id) ON DELETE CASCADE,
  inbox_id       uuid NOT NULL,
  account_id     uuid NOT NULL,
  message_id     uuid NOT NULL,                -- the inbox message that started the thread: the draft answers it
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'drafted', 'skipped', 'failed')),
  attempts       integer NOT NULL DEFAULT 0,
  due_at         timestamptz,                  -- set while pending
  claim_token    uuid,
  claimed_by     uuid,
  last_error     text,
  draft_id       uuid,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbox_agent_jobs_due ON inbox_agent_jobs (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX inbox_agent_jobs_claimed ON inbox_agent_jobs (claimed_by) WHERE claimed_by IS NOT NULL;
