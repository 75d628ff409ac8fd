-- CSV imports of contacts (POST /contacts/imports, resend-compat-notes §2.6). Owned by
-- src/audience/imports/. Valid on PostgreSQL 15 and 18.
--
-- The request streams the uploaded file into contact_import_chunks and answers 201 once the
-- import is queued; a worker (any node) then parses the stored file and writes contacts in
-- batches. The file lives in the database, not on one node's disk, so whichever node runs the
-- worker can read it, and a restart loses nothing.

CREATE TABLE contact_imports (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- 'uploading' while the request is still streaming the file in: never shown by the API, and
  -- deleted by the worker when the request died without finishing it.
  -- Then queued → in_progress → completed | failed.
  status        text NOT NULL CHECK (status IN ('uploading', 'queued', 'in_progress', 'completed', 'failed')),
  on_conflict   text NOT NULL DEFAULT 'skip' CHECK (on_conflict IN ('upsert', 'skip')),
  column_map    jsonb NOT NULL DEFAULT '{}',     -- as sent (validated), {email, first_name, …, properties}
  segment_ids   uuid[] NOT NULL DEFAULT '{}',
  topics        jsonb NOT NULL DEFAULT '[]',     -- [{id, subscription}]
  file_bytes    bigint NOT NULL DEFAULT 0,
  -- Progress, written in the transaction of each batch of rows: `total` rows of the file (header
  -- excluded) are done, so a worker taking the import over resumes after them.
  total         integer NOT NULL DEFAULT 0,
  created       integer NOT NULL DEFAULT 0,
  updated       integer NOT NULL DEFAULT 0,
  skipped       integer NOT NULL DEFAULT 0,
  failed        integer NOT NULL DEFAULT 0,
  errors        jsonb NOT NULL DEFAULT '[]',     -- the first rows that failed: [{line, message}]
  -- The worker holding the import: its token fences every batch it writes; a lease that ran
  -- out (a crashed node) lets another worker take the import over.
  lease_token   uuid,
  lease_until   timestamptz,
  attempts      integer NOT NULL DEFAULT 0,      -- runs that ended in an unexpected error
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  completed_at  timestamptz
);
CREATE INDEX contact_imports_account ON contact_imports (account_id, created_at DESC, id DESC);
CREATE INDEX contact_imports_pending ON contact_imports (created_at) WHERE status IN ('uploading', 'queued', 'in_progress');

-- The uploaded file in order, about 1 MiB a row; deleted when the import ends.
CREATE TABLE contact_import_chunks (
  import_id  uuid NOT NULL REFERENCES contact_imports (id) ON DELETE CASCADE,
  seq        integer NOT NULL,
  data       bytea NOT NULL,
  PRIMARY KEY (import_id, seq)
);
