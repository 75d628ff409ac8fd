-- Traffic shaping as each node's delivery worker sees it (src/delivery/shaping.ts): per
-- destination (a mailbox provider, or an MX host of no known provider) with a limit or a recent
-- throttling reply, its current rate, its limits and the last reply that slowed it. Written by
-- the worker every few seconds (delivery/shaping-states.ts), read by the queue view; the rows
-- of a node go with it.
CREATE TABLE delivery_shaping (
  node_id                  uuid NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  destination              text NOT NULL,
  rate_per_minute          integer,          -- null: not limited now
  limit_per_minute         integer,          -- the configured limit; null: none
  connections              integer NOT NULL,
  messages_per_connection  integer NOT NULL,
  sent_last_minute         integer NOT NULL,
  last_signal              text,
  last_signal_at           timestamptz,
  updated_at               timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (node_id, destination)
);
