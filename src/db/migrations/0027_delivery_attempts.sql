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
