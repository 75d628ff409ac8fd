-- POSTLINE_RECEIVED_RETENTION (src/inbound/retention.ts) deletes received messages by age, in
-- batches: an index on their arrival time keeps each batch from scanning the whole table.
-- Valid on PostgreSQL 15 and 18.
CREATE INDEX inbound_messages_created ON inbound_messages (created_at);
