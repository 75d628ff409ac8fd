-- OAuth grants (accounts/oauth-grants.ts): API access an account gives a named third-party app,
-- as a credential of its own with Resend's scopes (`full_access`, or `emails:send` alone,
-- optionally narrowed to one domain as a sending_access key can be). A grant is revoked, never
-- deleted, so the list keeps showing when and why; only the token's SHA-256 is stored.
CREATE TABLE oauth_grants (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  client_id        text NOT NULL,
  client_name      text NOT NULL,
  client_logo_uri  text,
  scopes           text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['full_access', 'emails:send']),
  domain_id        uuid,                          -- `emails:send` alone, restricted to one domain
  token_hash       bytea NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  revoked_at       timestamptz,
  revoked_reason   text,
  CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL)),
  CHECK (domain_id IS NULL OR NOT 'full_access' = ANY (scopes))
);
CREATE INDEX oauth_grants_account ON oauth_grants (account_id, created_at DESC, id DESC);
