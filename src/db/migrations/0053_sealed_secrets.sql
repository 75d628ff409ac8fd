-- Stored secrets are sealed (src/secrets/): each value encrypted with a data key of its own,
-- wrapped by the node's POSTLINE_SECRET_KEY. The values themselves are sealed by the first node
-- that starts with a key (secrets/stored-secrets.ts), since this migration has no key.

-- The keys secrets are sealed with: a node whose keys miss one still in use refuses to start.
CREATE TABLE secret_keys (
  key_id        text PRIMARY KEY,             -- derived from the key (secret-box.ts): names it, reveals nothing
  first_used_at timestamptz NOT NULL DEFAULT now(),
  retired_at    timestamptz                   -- `postline secrets rotate` moved every value off it
);

-- The URL-signing secret becomes text like the other sealed values (base64 until sealed).
ALTER TABLE server_secrets ALTER COLUMN secret TYPE text USING encode(secret, 'base64');
