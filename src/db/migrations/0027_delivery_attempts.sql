-- Every delivery attempt (src/delivery/outcomes.ts writes them with the outcome, in the same
-- transaction, one INSERT … SELECT FROM unnest per batch): which recipient, the MX host (or
-- relay, or the sandbox's catcher) it reached, the reply, and what the attempt concluded.
-- deliveries keep only the last attempt; the dashboard's email page shows them all
-- (GET /emails/:id/attempts). Gone with the email (the cascade; emails go with their account).
CREATE TABLE delivery_attempts (
  email_id      uuid NOT NULL REFERENCES emails (id) ON DELETE CASCADE,
  delivery_id   bigint NOT NULL,
  recipient     text NOT NULL,
  mx            text,
  response      text NOT NULL,
  outcome       text NOT NULL,  -- delivered | complained | deferred | bounced | failed | suppressed
  attempted_at  timestamptz NOT NULL DEFAULT now()
);
-- An email's attempts in order; also what the cascade looks rows up by.
CREATE INDEX delivery_attempts_email ON delivery_attempts (email_id, attempted_at);

-- GET /emails?to=: the emails with a recipient (to, cc or bcc), found from their deliveries,
-- which hold each recipient's bare address. Without it a rare recipient means probing every
-- email of the account (a million in bench/dashboard-emails.ts). On deliveries rather than a
-- GIN index on emails.to_addresses: it covers cc and bcc too, and a btree entry per recipient
-- is the cheapest index to keep on the accept path. The other filters need none: last_event,
-- from, subject and tag are checked on the rows the list already walks newest first
-- (emails_account), and created_after/before bound that same walk; an index on emails.last_event
-- would cost an entry in every index of emails at each event (no HOT update).
CREATE INDEX deliveries_recipient ON deliveries (account_id, lower(recipient));
