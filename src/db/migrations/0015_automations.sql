-- Custom events and automations (resend-compat-notes §2.11–2.12). Owned by src/custom-events/
-- (event_definitions, received_events) and src/automations/ (the rest). Valid on PostgreSQL 15
-- and 18. (The table `events` is the lifecycle outbox of src/events/, unrelated.)

-- Named custom events with an optional flat payload schema {key: string|number|boolean|date}.
CREATE TABLE event_definitions (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name        text NOT NULL,                     -- never UUID-shaped, never `resend:…`
  schema      jsonb,                             -- null: any payload
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz,                       -- null until the first PATCH
  UNIQUE (account_id, name)
);
CREATE INDEX event_definitions_account ON event_definitions (account_id, created_at DESC, id DESC);

-- The inbox between POST /events/send (custom-events/send-event.ts, which answers 202 once the
-- row is committed) and the automation worker (automations/ingest-events.ts), which deletes
-- each row in the transaction that starts its runs and wakes its waiting steps: every sent
-- event is acted on exactly once, even across crashes.
CREATE TABLE received_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name        text NOT NULL,
  contact_id  uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  payload     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- An automation's graph as the API gives it ({key, type, config}[] and {from, to, type}[]),
-- validated on every write (automations/graph.ts). trigger_event copies the trigger step's
-- event_name so that an incoming event finds its automations by index.
CREATE TABLE automations (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name           text NOT NULL,
  status         text NOT NULL CHECK (status IN ('enabled', 'disabled')),
  steps          jsonb NOT NULL,
  connections    jsonb NOT NULL,
  trigger_event  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automations_account ON automations (account_id, created_at DESC, id DESC);
CREATE INDEX automations_trigger ON automations (account_id, trigger_event) WHERE status = 'enabled';

-- One run per (automation, triggering event). It keeps the graph it started with, so editing
-- the automation never changes a run half-way, and the data its steps read: the trigger's
-- payload and the payloads received by wait_for_event steps ({event, wait_events}).
-- contact_id has no foreign key: a contact_delete step removes the contact, not the run.
CREATE TABLE automation_runs (
  id             uuid PRIMARY KEY,
  automation_id  uuid NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  contact_id     uuid NOT NULL,
  steps          jsonb NOT NULL,
  connections    jsonb NOT NULL,
  context        jsonb NOT NULL,
  status         text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
  started_at     timestamptz NOT NULL DEFAULT now(),
  completed_at   timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automation_runs_automation ON automation_runs (automation_id, created_at DESC, id DESC);
CREATE INDEX automation_runs_running ON automation_runs (automation_id) WHERE status = 'running';

-- The durable state of each step a run has reached (a graph without cycles reaches a step at
-- most once). The worker (automations/worker.ts) claims rows whose due_at has come with
-- FOR UPDATE SKIP LOCKED, pushing due_at forward by a lease and stamping claim_token; it
-- writes the outcome only while its token still stands, so a step is done exactly once.
--   pending  → reached, due now         running → claimed, being executed
--   waiting  → a delay (due_at = its end) or a wait_for_event (wait_event set; due_at = its
--              timeout, or null for none)
--   completed | failed | skipped (its run ended first) → due_at null
CREATE TABLE automation_run_steps (
  id            uuid PRIMARY KEY,
  run_id        uuid NOT NULL REFERENCES automation_runs (id) ON DELETE CASCADE,
  account_id    uuid NOT NULL,
  key           text NOT NULL,
  type          text NOT NULL,
  position      integer NOT NULL,                -- order reached, for GET …/runs/:id
  status        text NOT NULL CHECK (status IN ('pending', 'running', 'waiting', 'completed', 'failed', 'skipped')),
  due_at        timestamptz,
  claim_token   uuid,
  wait_event    text,
  output        jsonb,
  error         jsonb,
  started_at    timestamptz,
  completed_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (run_id, key)
);
CREATE INDEX automation_run_steps_due ON automation_run_steps (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX automation_run_steps_waiting ON automation_run_steps (account_id, wait_event) WHERE status = 'waiting';
