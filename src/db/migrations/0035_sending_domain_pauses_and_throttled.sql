-- A pause may hold only the mail of one sending domain (the domain mail is sent from): a
-- provider that blocklists one of an account's domains (554 5.7.1 "blocked") still takes the
-- mail of its other domains. '' holds all of the account's mail, as every pause made by an
-- operator does (queue/pauses.ts).
ALTER TABLE queue_pauses ADD COLUMN sending_domain text NOT NULL DEFAULT '';
ALTER TABLE queue_pauses DROP CONSTRAINT queue_pauses_account_id_kind_name_key;
ALTER TABLE queue_pauses ADD CONSTRAINT queue_pauses_destination UNIQUE (account_id, kind, name, sending_domain);

-- Whether the node's shaper has slowed the destination (delivery/shaping.ts: throttled by its
-- replies and not yet recovered), as the shaper knows it, rather than guessed from the rates.
ALTER TABLE delivery_shaping ADD COLUMN throttled boolean NOT NULL DEFAULT false;
