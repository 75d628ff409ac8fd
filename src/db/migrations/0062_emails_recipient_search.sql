-- GET /emails?to= and ?search= ask for text anywhere in an email's recipients (to, cc and bcc,
-- as given: `Name <addr>` or a bare address), as from= and subject= ask of theirs (0029): part
-- of an address, any case. deliveries_recipient (0027) finds a whole address only; a trigram
-- index over the recipients' text answers a fragment from the index, and ?search= (id, subject,
-- from or recipients) combines it with 0029's two in one bitmap. The planner walks
-- emails_account newest first instead when the text is common, as for from and subject.
--
-- The text is one function of the three columns, so an index can hold it (array_to_string is
-- only STABLE in general, for element types whose output may change; for text[] it cannot).
-- Its lines hold one address each: a search is one line (its schema), so it never matches
-- across two addresses. The columns never change after insert: updates of an email stay HOT.
-- PL/pgSQL rather than SQL: an IMMUTABLE SQL function over a STABLE one is never inlined, and
-- called as a function it costs about twice as much per row where the list walks its rows.
CREATE FUNCTION email_recipients_text(to_addresses text[], cc text[], bcc text[]) RETURNS text
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  AS $$ BEGIN RETURN array_to_string(to_addresses || coalesce(cc, '{}') || coalesce(bcc, '{}'), E'\n'); END $$;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    RAISE WARNING 'pg_trgm is not available: GET /emails''s to and search filters will read the account''s emails instead of an index';
    RETURN;
  END IF;
  EXECUTE 'CREATE INDEX emails_recipients_trgm ON emails USING gin (email_recipients_text(to_addresses, cc, bcc) gin_trgm_ops)';
END
$$;
