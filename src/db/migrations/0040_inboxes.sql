-- Inboxes (src/inboxes/): shared mailboxes built on inbound mail. Valid on PostgreSQL 15 and 18.

-- One inbox per address, on a receiving domain of its account (addresses are unique in the
-- installation because domain names are). The agent's settings are kept here, read back as
-- they were given.
CREATE TABLE inboxes (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain_id           uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  email_address       text NOT NULL UNIQUE,       -- lower case
  name                text NOT NULL,
  from_name           text,
  forwarding          boolean NOT NULL DEFAULT false,
  agent_instructions  text,
  agent_tone          text,
  agent_actions       text[] NOT NULL DEFAULT '{}',
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inboxes_account ON inboxes (account_id, created_at DESC, id DESC);

-- A conversation. `folder` is where a person put it; a thread with outbound messages only is
-- 'sent' until mail arrives in it. The counters and last activity are kept by the writer of
-- inbox_messages (src/inboxes/threading.ts) in the statement that adds a message.
CREATE TABLE inbox_threads (
  id               uuid PRIMARY KEY,
  inbox_id         uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  account_id       uuid NOT NULL,
  subject          text,
  thread_subject   text NOT NULL,                  -- subject without Re:/Fwd: prefixes, lower case
  folder           text NOT NULL CHECK (folder IN ('inbox', 'archive', 'spam', 'sent', 'trash')),
  read             boolean NOT NULL DEFAULT false,
  email_count      integer NOT NULL DEFAULT 0,
  has_attachment   boolean NOT NULL DEFAULT false,
  last_message_at  timestamptz NOT NULL DEFAULT now(),
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbox_threads_folder ON inbox_threads (inbox_id, folder, last_message_at DESC, id DESC);
CREATE INDEX inbox_threads_subject ON inbox_threads (inbox_id, thread_subject, last_message_at DESC);

-- The inbox's own copy of each message in a thread, received or sent: deleting a thread does
-- not touch /emails or /emails/receiving, and their retention does not empty threads.
-- `search` is the full-text document (subject, addresses, text), written with the row.
CREATE TABLE inbox_messages (
  id                 uuid PRIMARY KEY,
  thread_id          uuid NOT NULL REFERENCES inbox_threads (id) ON DELETE CASCADE,
  inbox_id           uuid NOT NULL,
  account_id         uuid NOT NULL,
  direction          text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  source_email_id    uuid NOT NULL,                -- the received email's id, or the sent email's
  message_id         text,
  references_ids     text[] NOT NULL,              -- In-Reply-To and References, oldest first
  from_display       text NOT NULL,                -- as written: "Name <addr>"
  from_address       text NOT NULL,                -- bare, lower case
  to_addresses       text[] NOT NULL,              -- bare, lower case (also cc, bcc, reply_to)
  cc                 text[] NOT NULL,
  bcc                text[] NOT NULL,
  reply_to           text[] NOT NULL,
  subject            text,
  html               text,
  text               text,
  attachments        jsonb NOT NULL DEFAULT '[]',  -- [{id, filename, size}]
  read               boolean NOT NULL DEFAULT false,
  search             tsvector NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbox_messages_thread ON inbox_messages (thread_id, created_at, id);
CREATE INDEX inbox_messages_message_id ON inbox_messages (inbox_id, message_id) WHERE message_id IS NOT NULL;
CREATE INDEX inbox_messages_search ON inbox_messages USING gin (search);

CREATE TABLE inbox_labels (
  id          uuid PRIMARY KEY,
  inbox_id    uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  name        text NOT NULL,
  color       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (inbox_id, name)
);

CREATE TABLE inbox_thread_labels (
  thread_id  uuid NOT NULL REFERENCES inbox_threads (id) ON DELETE CASCADE,
  label_id   uuid NOT NULL REFERENCES inbox_labels (id) ON DELETE CASCADE,
  PRIMARY KEY (thread_id, label_id)
);
CREATE INDEX inbox_thread_labels_label ON inbox_thread_labels (label_id);

-- Drafts: standalone, or a reply to one message of a thread. `email_id` is set once sent
-- (the draft is then kept, read-only, and no longer listed or counted).
CREATE TABLE inbox_drafts (
  id                  uuid PRIMARY KEY,
  inbox_id            uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  thread_id           uuid REFERENCES inbox_threads (id) ON DELETE CASCADE,
  reply_to_email_id   uuid,
  to_addresses        text[],
  cc                  text[] NOT NULL DEFAULT '{}',
  bcc                 text[] NOT NULL DEFAULT '{}',
  subject             text,
  html                text,
  text                text,
  email_id            uuid,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbox_drafts_inbox ON inbox_drafts (inbox_id, created_at DESC, id DESC);
