-- The node that holds each lease of the worker role's other claimed work (contact imports,
-- broadcast fan-out, automation steps), as deliveries and webhook messages have it (0022):
-- when the node stops beating, what it held is handed back at once (src/cluster/node-presence.ts).
ALTER TABLE contact_imports ADD COLUMN claimed_by uuid;
ALTER TABLE broadcasts ADD COLUMN claimed_by uuid;
ALTER TABLE automation_run_steps ADD COLUMN claimed_by uuid;
