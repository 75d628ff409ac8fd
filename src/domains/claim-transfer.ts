// Verifying a domain claim: the TXT record is looked up (fresh, through POSTLINE_DNS_SERVERS)
// before any transaction opens, then one transaction moves the domain. What moves and what
// does not, and why (docs/architecture/decisions.md, "Domain claims"):
// - the holder's domain row is deleted, with its DKIM key (never reused: the claimant's
//   placeholder has its own), its record statuses and its warm-up; the holder gets
//   domain.deleted, the claimant domain.updated, both through the one event writer;
// - the placeholder becomes the claimant's domain, `not_started` with warm-up from now: its
//   records must be published and verified before it sends or receives, as after a create;
// - while the holder still has mail from the domain to send (queued, deferred, paused or
//   scheduled, or a broadcast scheduled or going out from it), the claim is `blocked`
//   (`pending_scheduled_emails`) and nothing moves: that mail was accepted under the holder's
//   key and would otherwise fail or go out signed by a domain no longer theirs. Verifying again
//   once it is sent (or canceled) completes the claim.
// The holder's sent and received mail stays the holder's; its inboxes on the domain go with the
// domain, as on DELETE /domains/:id.
import { DnsTemporaryError } from '../dns/resolver.js';
import { recordEvents } from '../events/record-events.js';
import { type ClaimRow, claimRecord, latestClaim, LIVE_STATUSES, PROOF_PREFIX } from './claim-rows.js';
import type { DomainClaimsDeps } from './domain-claims.js';
import { type AccountDomainRow, DOMAIN_COLUMNS, domainEventData } from './domain-view.js';

type Proof = { found: true } | { found: false; reason: string };

async function lookUpProof(deps: DomainClaimsDeps, claim: ClaimRow): Promise<Proof> {
  const record = claimRecord(claim);
  let values: string[];
  try {
    values = (await deps.dns.txt(claim.name, { fresh: true })).map((v) => v.trim());
  } catch (err) {
    if (!(err instanceof DnsTemporaryError)) throw err;
    return { found: false, reason: `The DNS lookup of TXT records at \`${claim.name}\` failed for now (${err.message}); verify again later.` };
  }
  if (values.includes(record.value)) return { found: true };
  if (values.some((v) => v.startsWith(PROOF_PREFIX))) {
    return { found: false, reason: `The TXT records at \`${claim.name}\` hold another verification token, not this claim's \`${record.value}\`.` };
  }
  return { found: false, reason: `No TXT record \`${record.value}\` was found at \`${claim.name}\`.` };
}

/** Whether the holder has mail from the domain still to send: scheduled or not final, or a broadcast waiting or going out from it. */
const HOLDER_MAIL_PENDING_SQL = `
  SELECT EXISTS (
           SELECT 1 FROM deliveries dl JOIN emails e ON e.id = dl.email_id
            WHERE dl.account_id = $1 AND dl.status IN ('queued', 'scheduled', 'paused') AND e.domain_id = $2)
      OR EXISTS (
           SELECT 1 FROM broadcasts b
            WHERE b.account_id = $1 AND b.status IN ('scheduled', 'sending')
              AND lower(substring(b.from_address from '@([^@<>[:space:]]+)>?[[:space:]]*$')) = $3) AS pending`;

interface HolderMailRow {
  pending: boolean;
}

/** Verifies `claim` (the latest of its placeholder) and answers it as it is afterwards. */
export async function verifyClaim(deps: DomainClaimsDeps, claim: ClaimRow): Promise<ClaimRow> {
  if (!LIVE_STATUSES.includes(claim.status)) return claim;
  const proof = await lookUpProof(deps, claim);
  return deps.db.tx(async (q) => {
    // The name's domain rows first, then the claim: the order POST /domains/claim and DELETE /domains/:id lock in.
    const rows = await q.query<AccountDomainRow>(`SELECT account_id, ${DOMAIN_COLUMNS} FROM domains WHERE name = $1 ORDER BY id FOR UPDATE`, [claim.name]);
    const current = await latestClaim(q, claim.account_id, claim.domain_id, true);
    // Superseded, canceled, expired or completed since it was read: answered as it is now.
    if (!current || current.id !== claim.id || !LIVE_STATUSES.includes(current.status)) return current ?? claim;
    if (!proof.found) {
      await q.query(`UPDATE domain_claims SET status = 'pending', blocked_reason = NULL, failure_reason = $2 WHERE id = $1`, [claim.id, proof.reason]);
      return (await latestClaim(q, claim.account_id, claim.domain_id))!;
    }
    const holder = rows.find((r) => !r.placeholder);
    if (holder) {
      const { pending } = (await q.one<HolderMailRow>(HOLDER_MAIL_PENDING_SQL, [holder.account_id, holder.id, claim.name]))!;
      if (pending) {
        await q.query(`UPDATE domain_claims SET status = 'blocked', blocked_reason = 'pending_scheduled_emails', failure_reason = NULL WHERE id = $1`, [
          claim.id,
        ]);
        return (await latestClaim(q, claim.account_id, claim.domain_id))!;
      }
      await q.query('DELETE FROM domains WHERE id = $1', [holder.id]);
      await recordEvents(q, [{ accountId: holder.account_id, type: 'domain.deleted', data: domainEventData(holder, deps.hosts) }]);
    }
    const domain = await q.one<AccountDomainRow>(
      `UPDATE domains SET placeholder = false, status = 'not_started', record_status = '{}', verified_at = NULL,
         warmup_started_at = CASE WHEN sandboxed THEN NULL ELSE now() END
       WHERE id = $1 AND account_id = $2 AND placeholder RETURNING account_id, ${DOMAIN_COLUMNS}`,
      [claim.domain_id, claim.account_id],
    );
    await recordEvents(q, [{ accountId: claim.account_id, type: 'domain.updated', data: domainEventData(domain!, deps.hosts) }]);
    await q.query(`UPDATE domain_claims SET status = 'completed', completed_at = now(), blocked_reason = NULL, failure_reason = NULL WHERE id = $1`, [
      claim.id,
    ]);
    return (await latestClaim(q, claim.account_id, claim.domain_id))!;
  });
}
