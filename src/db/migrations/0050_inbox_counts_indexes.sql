-- An inbox's counts, lists over several folders and searches without reading all its threads
-- and messages (src/inboxes/inbox-view.ts, thread-list.ts; measured by bench/inbox-threads.ts
-- with 100,000 threads, 250,000 messages). Valid on PostgreSQL 15 and 18.

-- Newest first across folders (search's default is inbox, archive and sent): the folder index
-- orders one folder only, so several were sorted whole (~400 ms at 100,000 threads).
CREATE INDEX inbox_threads_activity ON inbox_threads (inbox_id, last_message_at DESC, id DESC);

-- `unread` counts the unread threads of the inbox folder, and `read=false` lists them newest
-- first: both from this small index (about a fifth of a busy inbox's threads).
CREATE INDEX inbox_threads_unread ON inbox_threads (inbox_id, last_message_at DESC, id DESC) WHERE folder = 'inbox' AND NOT read;

-- `last_received`: the newest received message, one index entry away instead of a scan of the
-- inbox's messages.
CREATE INDEX inbox_messages_received ON inbox_messages (inbox_id, created_at) WHERE direction = 'inbound';

-- Search by sender (`from`): the sender's messages, rather than every thread probed in turn.
CREATE INDEX inbox_messages_from ON inbox_messages (inbox_id, from_address);
