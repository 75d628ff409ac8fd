-- Dashboard users (src/users/): people who sign in to the dashboard, each acting as one
-- account with full access. Sign-in is by address alone, so an address is one user.
CREATE TABLE users (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email          text NOT NULL UNIQUE,          -- lower-cased
  password_hash  text,                          -- scrypt$N$r$p$salt$hash; NULL until the set-password link is used
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_account ON users (account_id);

-- A signed-in browser: the cookie's value is a random token, only its SHA-256 is stored.
-- It ends when idle too long (last_seen_at), at expires_at whatever the activity, or at sign-out.
CREATE TABLE user_sessions (
  token_hash    bytea PRIMARY KEY,
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);

-- One-time links that set a password: a user's (`postline users create`), or with user_id
-- NULL the first-run set-up link, which creates the first user, of the oldest account when it
-- is used (created then if there is none: a start creates no account). Used once, an hour at most.
CREATE TABLE password_tokens (
  token_hash  bytea PRIMARY KEY,
  user_id     uuid REFERENCES users (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
