-- Mail in transit (src/tls-policy/): recipient domains' MTA-STS policies (RFC 8461), shared by every
-- node (mta-sts-cache.ts), and what TLS each delivery attempt had.
-- A row per recipient domain Postline has delivered to, with or without a policy: the
-- `_mta-sts` TXT record is looked up again only after check_after, by the one node that moves
-- check_after on, so a cluster asks DNS once per check interval whatever its traffic.
CREATE TABLE mta_sts_policies (
  domain text PRIMARY KEY,
  -- The policy in force (null: none known); kept when a later check or fetch fails, until it expires.
  policy_id text,
  mode text CHECK (mode IN ('enforce', 'testing', 'none')),
  mx text[] NOT NULL DEFAULT '{}',
  max_age integer,
  policy_text text,
  fetched_at timestamptz,
  expires_at timestamptz,
  -- The last look at the TXT record, the next one, and what went wrong in the last (null: nothing).
  checked_at timestamptz,
  check_after timestamptz NOT NULL,
  last_error text
);

-- Each attempt's TLS: the protocol of the session that carried it (null: plain text, or no
-- session) and the requirement it was held to (src/tls-policy/requirement.ts), for
-- GET /emails/:id/attempts.
ALTER TABLE delivery_attempts ADD COLUMN tls_protocol text, ADD COLUMN tls_requirement text;
