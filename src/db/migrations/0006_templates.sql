-- Templates (resend-compat-notes §2.9). A row holds the draft a user edits (what GET shows
-- and PATCH changes) and, once published, a frozen copy of the published version, which is
-- the only thing sending uses. Valid on PostgreSQL 15 and 18.
--
-- Versions: draft_version_id names the draft; publishing copies the draft into `published`
-- and sets published_version_id to it. The next edit after a publish starts a new draft
-- version, so "has unpublished versions" is draft_version_id <> published_version_id.
CREATE TABLE templates (
  id                    uuid PRIMARY KEY,
  account_id            uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name                  text NOT NULL,
  alias                 text,                      -- unique per account; never UUID-shaped
  from_address          text,
  subject               text,
  reply_to              text[],
  html                  text NOT NULL,
  text                  text,
  variables             jsonb NOT NULL DEFAULT '[]', -- [{id, key, type, fallback_value, created_at, updated_at}]
  draft_version_id      uuid NOT NULL,
  published             jsonb,                     -- {from, subject, reply_to, html, text, variables} or null
  published_version_id  uuid,
  published_at          timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX templates_account ON templates (account_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX templates_alias ON templates (account_id, alias) WHERE alias IS NOT NULL;
