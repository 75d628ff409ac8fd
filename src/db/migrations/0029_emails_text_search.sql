-- GET /emails?from= and ?subject= ask for text anywhere in the field (ILIKE '%text%'). Without an
-- index, text that matches few or no emails means reading every email of the account (1.2–1.7 s
-- at a million, bench/dashboard-emails.ts); a trigram index answers it from the index. The
-- planner still walks emails_account newest first when the text is common (its statistics try
-- the pattern on the column's sampled values), so both kinds stay fast.
--
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: a database owner may
-- create it. Where it cannot be created (a managed server without contrib, a role without
-- CREATE on the database) the migration says so and goes on: the filters work, by reading.
-- The indexed columns never change after insert, so updates of an email (last_event) stay HOT.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
    RAISE WARNING 'pg_trgm is not available (%): GET /emails''s from and subject filters will read the account''s emails instead of an index', SQLERRM;
    RETURN;
  END;
  EXECUTE 'CREATE INDEX emails_from_trgm ON emails USING gin (from_address gin_trgm_ops)';
  EXECUTE 'CREATE INDEX emails_subject_trgm ON emails USING gin (subject gin_trgm_ops)';
END
$$;
