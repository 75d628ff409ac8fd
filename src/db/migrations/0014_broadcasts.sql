-- Broadcasts (resend-compat-notes §2.8): bulk emails to a segment's contacts, fanned out by
-- the worker role (src/broadcasts/fan-out*.ts) through the accept pipeline in chunks.
-- Owned by src/broadcasts/. Valid on PostgreSQL 15 and 18.
--
-- States: draft → scheduled → sending → sent, and canceled (from scheduled or sending).
-- A broadcast is `sending` from the moment it is due (POST /send without a time makes it due
-- at once) until its fan-out has walked every contact of the segment.
CREATE TABLE broadcasts (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name           text,
  -- Not foreign keys: a sent broadcast keeps naming the segment and topic it went to even
  -- after they are deleted. Existence is checked when the broadcast is saved and sent.
  segment_id     uuid,
  topic_id       uuid,
  from_address   text,                          -- as given, may carry a display name
  subject        text,
  reply_to       text[],
  preview_text   text,
  html           text,
  text           text,
  status         text NOT NULL DEFAULT 'draft'
                 CHECK (status IN ('draft', 'scheduled', 'sending', 'sent', 'canceled')),
  scheduled_at   timestamptz,                   -- when it is due; null: at once (or a draft)
  sent_at        timestamptz,                   -- when its fan-out started
  -- The fan-out's progress: the last contact id (segment order) whose email is committed.
  -- Advanced in the same transaction as that chunk's emails, so a restart resumes after it.
  cursor         uuid,
  recipients     integer NOT NULL DEFAULT 0,    -- emails accepted so far
  -- The fan-out's lease: a worker holds the broadcast until then (extended per chunk); one
  -- that dies simply stops extending it and another node takes over.
  lease_until    timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX broadcasts_account ON broadcasts (account_id, created_at DESC, id DESC);
-- The fan-out's claim: broadcasts due or in progress. Partial, so it holds only the few that
-- are waiting or going out.
CREATE INDEX broadcasts_pending ON broadcasts (scheduled_at) WHERE status IN ('scheduled', 'sending');

-- The email each contact got from a broadcast. The unique index is the second guard (after
-- the cursor) that a contact never gets one broadcast twice, whatever happens to a fan-out.
-- contact_id is not a foreign key: deleting a contact keeps the history of what was sent.
ALTER TABLE emails ADD COLUMN broadcast_id uuid REFERENCES broadcasts (id) ON DELETE SET NULL;
ALTER TABLE emails ADD COLUMN contact_id uuid;
CREATE UNIQUE INDEX emails_broadcast_contact ON emails (broadcast_id, contact_id) WHERE broadcast_id IS NOT NULL;

-- Who unsubscribed (from everything, or from the broadcast's topic) through a broadcast's
-- link: GET /broadcasts/:id/recipients?type=unsubscribed.
CREATE TABLE broadcast_unsubscribes (
  broadcast_id  uuid NOT NULL REFERENCES broadcasts (id) ON DELETE CASCADE,
  contact_id    uuid NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (broadcast_id, contact_id)
);

-- Queue priority: 0 transactional (API, SMTP, automations), 1 bulk (broadcasts). The claim
-- (src/delivery/claim.ts) takes due transactional rows first, so a large broadcast never
-- holds up a password reset. The due index leads with the priority so that each class is
-- read in next_attempt_at order by its own index range.
ALTER TABLE deliveries ADD COLUMN priority smallint NOT NULL DEFAULT 0;
DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (priority, next_attempt_at) WHERE status = 'queued';
