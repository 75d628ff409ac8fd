-- Postline's own certificates from an ACME CA (src/certificates/), shared by every node: the
-- node whose UPDATE claims a due row orders (or renews) it; the others load what it stored.
CREATE TABLE tls_certificates (
  hostname        text PRIMARY KEY,
  cert            text,                       -- the chain, PEM; null until first obtained
  private_key     text,                       -- sealed
  not_after       timestamptz,
  obtained_at     timestamptz,
  -- The next order or renewal: due now, after a back-off, or a claim's lease while one runs.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  failures        integer NOT NULL DEFAULT 0,
  last_error      text
);

-- The ACME account per directory, its key sealed.
CREATE TABLE acme_accounts (
  directory_url text PRIMARY KEY,
  email         text NOT NULL,
  account_key   text NOT NULL
);

-- http-01 challenges in flight, answered by every node's responder (the CA may reach any of them).
CREATE TABLE acme_challenges (
  token             text PRIMARY KEY,
  key_authorization text NOT NULL,
  expires_at        timestamptz NOT NULL
);
