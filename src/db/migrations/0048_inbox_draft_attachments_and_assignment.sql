-- Inboxes (src/inboxes/): files stored on drafts, and who a thread is assigned to.
-- Valid on PostgreSQL 15 and 18.

-- A draft's files, kept until it is sent (they then go out through the accept pipeline and
-- live on in the sent email's message) or deleted. A `path` is downloaded when the draft is
-- written, so a draft holds bytes only. At most 25 MB a draft (checked by draft-attachments.ts).
CREATE TABLE inbox_draft_attachments (
  id            uuid PRIMARY KEY,
  draft_id      uuid NOT NULL REFERENCES inbox_drafts (id) ON DELETE CASCADE,
  position      integer NOT NULL,                 -- order given, 0-based
  filename      text NOT NULL,
  content_type  text NOT NULL,
  content_id    text,                             -- set: an inline part (cid:), as on POST /emails
  content       bytea NOT NULL,
  size          integer NOT NULL,
  UNIQUE (draft_id, position)
);

-- The teammate a thread is assigned to, by address (lower case); null: nobody.
ALTER TABLE inbox_threads ADD COLUMN assignee_email text;
