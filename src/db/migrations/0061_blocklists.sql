-- Blocklists watched (src/blocklists/): the addresses the nodes send from and the verified
-- sending domains, asked of DNS blocklists (POSTLINE_DNSBLS, POSTLINE_DOMAIN_BLOCKLISTS) once per
-- POSTLINE_DNSBL_INTERVAL for the whole cluster.

-- The outbound addresses of the nodes: each node's worker role puts its own here
-- (POSTLINE_OUTBOUND_IPS, or the public address its system sends from) and keeps seen_at fresh;
-- an address no node has claimed for a while is dropped by the next round.
CREATE TABLE blocklist_addresses (
  ip text PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);

-- One row: when the last round started. The node whose UPDATE moves it on (once it is an
-- interval old) does the round; the others see it moved and wait for the next.
CREATE TABLE blocklist_rounds (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  started_at timestamptz NOT NULL DEFAULT '-infinity',
  rounds bigint NOT NULL DEFAULT 0
);
INSERT INTO blocklist_rounds DEFAULT VALUES;

-- What each list last said of each target.
CREATE TABLE blocklist_checks (
  kind text NOT NULL CHECK (kind IN ('ip', 'domain')),
  -- An address or a domain name.
  target text NOT NULL,
  -- The list's DNS zone (zen.spamhaus.org, dbl.spamhaus.org, …).
  zone text NOT NULL,
  -- The state: the last definite answer listed it. Changed only by a definite answer (a listing,
  -- or NXDOMAIN), so a time-out or a refusal to answer keeps it; domain.blocklisted and
  -- domain.unblocklisted are recorded when it changes.
  listed boolean NOT NULL DEFAULT false,
  -- What the last round got: listed, not_listed, not_possible (the list refused to answer:
  -- public resolver, too many queries, …) or unknown (time-out, SERVFAIL).
  result text NOT NULL CHECK (result IN ('listed', 'not_listed', 'not_possible', 'unknown')),
  -- The A records of the last listing or refusal (127.0.0.2, 127.255.255.254, …).
  return_codes text[] NOT NULL DEFAULT '{}',
  -- The list's TXT record for a listing, or why the check was not possible.
  reason text,
  -- Why the last round got no answer (result unknown).
  error text,
  first_listed_at timestamptz,
  checked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, target, zone)
);

-- The listings each sending domain's webhooks have been told of (domain.blocklisted recorded,
-- domain.unblocklisted not yet): its own, and those of the addresses it sends from. Each round
-- compares every domain's listings with these and records an event per difference, so a
-- domain verified, or pinned to an address, while the address is listed hears of it too.
CREATE TABLE blocklist_notices (
  domain_id uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  kind text NOT NULL,
  target text NOT NULL,
  zone text NOT NULL,
  PRIMARY KEY (domain_id, kind, target, zone)
);
