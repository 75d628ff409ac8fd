-- DKIM key rotation (src/domains/dkim-rotation.ts): every key a domain has had, by selector. The
-- key that signs stays in domains (dkim_selector, dkim_private_key, dkim_public_key); a new key
-- waits here as `pending`, with its (sealed) private key, until its TXT record is published,
-- then takes their place, and the one it replaces is `retiring` until retire_at (its record
-- should stay published that long, for mail signed with it still on its way), then `retired`.
CREATE TABLE domain_dkim_keys (
  domain_id     uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  selector      text NOT NULL,
  public_key    text NOT NULL,
  private_key   text,                         -- sealed; only while pending
  status        text NOT NULL CHECK (status IN ('pending', 'active', 'retiring', 'retired')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  activated_at  timestamptz,
  retire_at     timestamptz,
  retired_at    timestamptz,
  -- The last look at a pending key's record: not_started, pending, failed, temporary_failure.
  record_status text NOT NULL DEFAULT 'not_started',
  PRIMARY KEY (domain_id, selector)
);
CREATE UNIQUE INDEX domain_dkim_keys_one_pending ON domain_dkim_keys (domain_id) WHERE status = 'pending';
CREATE INDEX domain_dkim_keys_moving ON domain_dkim_keys (status) WHERE status IN ('pending', 'retiring');

INSERT INTO domain_dkim_keys (domain_id, selector, public_key, status, created_at, activated_at)
SELECT id, dkim_selector, dkim_public_key, 'active', created_at, created_at FROM domains;
