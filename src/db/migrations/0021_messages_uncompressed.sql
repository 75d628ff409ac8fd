-- An email's row keeps a message of up to about 8 KB inline and uncompressed. By default
-- PostgreSQL compresses the widest values of any row over ~2 KB with pglz, which for a typical
-- submitted message (2-4 KB) was 8 % of PostgreSQL's CPU while accepting (perf, 100 messages
-- per SMTP connection) and is paid again when the first attempt stores the signed message. The
-- messages wait in the queue for seconds; the kilobytes pglz saved are not worth that. Larger
-- rows are compressed and moved out of line as before.
-- Valid on PostgreSQL 15 and 18 (a storage parameter: no table rewrite).
ALTER TABLE emails SET (toast_tuple_target = 8160);
