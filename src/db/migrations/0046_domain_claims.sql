-- Domain claims (src/domains/domain-claims.ts, the SDK's domains.claims.*): an account takes over
-- a domain another account of the installation holds, proving control with a TXT record.
--
-- A claim creates a placeholder domain in the claiming account (Resend's model: the claim is
-- read and verified through that domain's id, and deleting it cancels the claim). The
-- placeholder carries the domain's name while another account still holds it, so a name is now
-- unique among held domains only, and once per account; nothing routes or signs by a
-- placeholder's name (sending, inbound and the sandbox's key lookup all pass it over).
ALTER TABLE domains ADD COLUMN placeholder boolean NOT NULL DEFAULT false;
ALTER TABLE domains DROP CONSTRAINT domains_name_key;
CREATE UNIQUE INDEX domains_held_name ON domains (name) WHERE NOT placeholder;
CREATE UNIQUE INDEX domains_account_name ON domains (account_id, name);

-- Each attempt to claim a name; the latest of a placeholder is its claim. domain_id has no
-- foreign key: a claim canceled by deleting its placeholder is still answered (`canceled`).
CREATE TABLE domain_claims (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain_id       uuid NOT NULL,
  name            text NOT NULL,
  token           text NOT NULL,
  status          text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'verified', 'completed', 'blocked', 'expired', 'superseded', 'canceled', 'failed')),
  blocked_reason  text CHECK (blocked_reason IN ('grace_period', 'recent_owner_activity', 'pending_scheduled_emails')),
  failure_reason  text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  completed_at    timestamptz
);
CREATE INDEX domain_claims_domain ON domain_claims (domain_id, created_at DESC, id DESC);
