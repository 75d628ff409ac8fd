-- A sending domain pinned to some of the node's outbound addresses (POSTLINE_OUTBOUND_IPS):
-- its mail leaves only from those (delivery/outbound-ips.ts). null: any of them, in turn.
ALTER TABLE domains ADD COLUMN outbound_ips text[];
