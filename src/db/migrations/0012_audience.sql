-- The audience (resend-compat-notes §2.5–2.7): contacts with their unsubscribe state and
-- properties, contact property definitions, segments (also reachable as /audiences) and
-- topics with per-contact subscriptions. Owned by src/audience/. Valid on PostgreSQL 15 and 18.

-- One row per address per account: a contact is found by id or by its address.
CREATE TABLE contacts (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email         text NOT NULL,                     -- bare address, lower-cased
  first_name    text,
  last_name     text,
  unsubscribed  boolean NOT NULL DEFAULT false,     -- from every broadcast, whatever the topic
  properties    jsonb NOT NULL DEFAULT '{}',        -- {key: string | number | null}
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, email)
);
CREATE INDEX contacts_account ON contacts (account_id, created_at DESC, id DESC);

-- Typed properties a contact may carry; fallback_value fills {{{KEY}}} when a contact has none.
CREATE TABLE contact_properties (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key             text NOT NULL,
  type            text NOT NULL CHECK (type IN ('string', 'number')),
  fallback_value  jsonb,                            -- a string or number of `type`, or null
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, key)
);

CREATE TABLE segments (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX segments_account ON segments (account_id, created_at DESC, id DESC);

-- Membership, ordered by contact id so a broadcast's fan-out can walk a segment in chunks.
CREATE TABLE segment_contacts (
  segment_id  uuid NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
  contact_id  uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (segment_id, contact_id)
);
CREATE INDEX segment_contacts_contact ON segment_contacts (contact_id);

CREATE TABLE topics (
  id                    uuid PRIMARY KEY,
  account_id            uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name                  text NOT NULL,
  description           text,
  default_subscription  text NOT NULL CHECK (default_subscription IN ('opt_in', 'opt_out')),
  visibility            text NOT NULL DEFAULT 'private' CHECK (visibility IN ('public', 'private')),
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX topics_account ON topics (account_id, created_at DESC, id DESC);

-- A contact's explicit choice for a topic; without a row the topic's default_subscription holds.
CREATE TABLE contact_topics (
  contact_id    uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
  topic_id      uuid NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
  subscription  text NOT NULL CHECK (subscription IN ('opt_in', 'opt_out')),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contact_id, topic_id)
);
CREATE INDEX contact_topics_topic ON contact_topics (topic_id);
