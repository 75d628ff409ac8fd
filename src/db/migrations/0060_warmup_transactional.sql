-- Warm-up holds bulk mail only (warmup/bulk-mail.ts: broadcasts, and mail with List-Unsubscribe or
-- Precedence: bulk/list/junk); a domain's operator who wants its transactional mail capped too
-- turns this on (PATCH /domains/:id `warmup.cap_transactional`).
ALTER TABLE domains ADD COLUMN warmup_cap_transactional boolean NOT NULL DEFAULT false;

-- Transactional mail an earlier version held for a domain's next day goes now: the gate lets it
-- through, and holds again what is bulk.
UPDATE deliveries SET next_attempt_at = now(), updated_at = now()
 WHERE status = 'queued' AND claimed_by IS NULL AND priority = 0 AND next_attempt_at > now()
   AND last_response LIKE '451 4.4.5 Warm-up of %' AND last_response NOT LIKE '451 4.4.5 Warm-up of the outbound IPs%';
