-- Warm-up of outbound IPs (src/warmup/ip-warmup.ts): when POSTLINE_OUTBOUND_IPS lists several
-- addresses, each sends at most a growing number of messages a day to each mailbox provider,
-- on the default schedule, from the moment a node first sees it in its configuration.
-- started_at: when its day 1 began (a test moves it back to make days pass).
CREATE TABLE outbound_ip_warmup (
  ip          text PRIMARY KEY,
  started_at  timestamptz NOT NULL DEFAULT now()
);

-- What each address was allowed to send to each provider on each day of its warm-up, shared by
-- every node, counted like warmup_sent (one UPSERT per delivery job; `granted` read back).
CREATE TABLE outbound_ip_warmup_sent (
  ip        text NOT NULL REFERENCES outbound_ip_warmup (ip) ON DELETE CASCADE,
  provider  text NOT NULL,
  day       integer NOT NULL,
  sent      integer NOT NULL,
  granted   integer NOT NULL,
  PRIMARY KEY (ip, provider, day)
);
