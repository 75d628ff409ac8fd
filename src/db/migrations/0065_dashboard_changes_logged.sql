-- The request log keeps what dashboard users changed (logs/request-logs.ts): the user who made
-- each such request. NULL for a request made with an API key, as before.
ALTER TABLE request_logs ADD COLUMN user_id uuid;
