// POST /domains/claim, GET /domains/:id/claim and POST /domains/:id/claim/verify (the SDK's
// domains.claims.*): an account takes over a domain another account of this installation
// holds, proving control of its DNS with a TXT record, as Resend's claims move a domain
// between teams. A claim makes a placeholder domain in the claiming account (with its own,
// fresh DKIM key; its id is the claim's `domain_id`, through which the claim is read and
// verified; deleting it cancels the claim); verification looks the TXT record up through
// Postline's resolver and moves the domain (claim-transfer.ts).
import { notFound, validation } from '../api/errors.js';
import type { Principal, Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { DnsResolver } from '../dns/resolver.js';
import { CLAIM_SCHEMA, claimView, insertClaim, latestClaim, LIVE_STATUSES } from './claim-rows.js';
import { verifyClaim } from './claim-transfer.js';
import { CLAIM_DOMAIN_SCHEMA, type DomainFields, type DomainSettings, parseDomainName, parseRegion, returnPathOf, settingsOf } from './domain-fields.js';
import { insertDomain } from './domains.js';
import type { RecordTargets } from './dns-records.js';

export interface DomainClaimsDeps {
  db: Db;
  dns: DnsResolver;
  hosts: RecordTargets;
  sandbox?: boolean;
}

interface ClaimRequest {
  name: string;
  region: string;
  returnPath: string;
  settings: DomainSettings;
}

/** A body that passed CLAIM_DOMAIN_SCHEMA (api/request-schema.ts), read. */
function claimRequest(fields: DomainFields): ClaimRequest {
  return { name: parseDomainName(fields.name!), region: parseRegion(fields.region), returnPath: returnPathOf(fields), settings: settingsOf(fields) };
}

/** A domain row of the claimed name: the holder's, or this account's placeholder. */
interface NamedDomainRow {
  id: string;
  account_id: string;
  placeholder: boolean;
  region: string;
  custom_return_path: string;
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_subdomain: string | null;
}

/** Whether the placeholder already has the settings a repeated claim asks for. */
function sameSettings(placeholder: NamedDomainRow, r: ClaimRequest): boolean {
  return (
    placeholder.region === r.region &&
    placeholder.custom_return_path === r.returnPath &&
    placeholder.open_tracking === (r.settings.openTracking ?? false) &&
    placeholder.click_tracking === (r.settings.clickTracking ?? false) &&
    placeholder.tracking_subdomain === (r.settings.trackingSubdomain ?? null)
  );
}

export class DomainClaims {
  constructor(private deps: DomainClaimsDeps) {}

  /** 201 with a new claim; 200 with the pending one when an identical claim is pending (as Resend answers). */
  async create(principal: Principal, fields: DomainFields): Promise<{ status: number; body: ReturnType<typeof claimView> }> {
    const request = claimRequest(fields);
    const { name } = request;
    return this.deps.db.tx(async (q) => {
      const rows = await q.query<NamedDomainRow>(
        `SELECT id, account_id, placeholder, region, custom_return_path, open_tracking, click_tracking, tracking_subdomain
           FROM domains WHERE name = $1 ORDER BY id FOR UPDATE`,
        [name],
      );
      const mine = rows.find((r) => r.account_id === principal.accountId);
      if (mine && !mine.placeholder) throw validation(`The \`${name}\` domain is already this account's: there is nothing to claim.`, 403);
      if (!mine && !rows.some((r) => !r.placeholder)) {
        throw validation(`No other account holds the \`${name}\` domain, so there is nothing to claim: add it with POST /domains.`);
      }
      if (mine) {
        const latest = await latestClaim(q, principal.accountId, mine.id, true);
        if (latest && LIVE_STATUSES.includes(latest.status) && sameSettings(mine, request)) return { status: 200, body: claimView(latest) };
        if (latest && LIVE_STATUSES.includes(latest.status)) await q.query(`UPDATE domain_claims SET status = 'superseded' WHERE id = $1`, [latest.id]);
        const s = request.settings;
        await q.query(
          `UPDATE domains SET region = $2, custom_return_path = $3, open_tracking = $4, click_tracking = $5, tracking_subdomain = $6 WHERE id = $1`,
          [mine.id, request.region, request.returnPath, s.openTracking ?? false, s.clickTracking ?? false, s.trackingSubdomain ?? null],
        );
        return { status: 201, body: claimView(await insertClaim(q, principal.accountId, mine.id, name)) };
      }
      const placeholder = await insertDomain(q, principal.accountId, { ...request, sandboxed: this.deps.sandbox, placeholder: true }, this.deps.hosts);
      // Another request of this account made the placeholder since the lookup above.
      if (!placeholder) throw validation(`A claim of the \`${name}\` domain was started at the same time: retrieve it with GET /domains/:id/claim.`, 409);
      return { status: 201, body: claimView(await insertClaim(q, principal.accountId, placeholder.id, name)) };
    });
  }

  async get(principal: Principal, domainId: string) {
    const claim = await latestClaim(this.deps.db, principal.accountId, domainId);
    if (!claim) throw notFound('Domain claim');
    return claimView(claim);
  }

  async verify(principal: Principal, domainId: string) {
    const claim = await latestClaim(this.deps.db, principal.accountId, domainId);
    if (!claim) throw notFound('Domain claim');
    return claimView(await verifyClaim(this.deps, claim));
  }

  routes(): Route[] {
    const params = { id: uuid('The placeholder domain the claim made (its `domain_id`).') };
    return [
      {
        method: 'POST',
        url: '/domains/claim',
        doc: {
          summary: 'Claim a domain',
          description:
            'Starts a claim of a domain another account of this installation holds: makes a placeholder domain in this account (with a fresh DKIM key) and answers the TXT record to publish at the domain to prove control of it. 200 with the pending claim when an identical one is pending; a claim with other settings supersedes it. 403 for a domain of this account; 422 for a domain no other account holds (add it with POST /domains).',
          body: CLAIM_DOMAIN_SCHEMA,
          response: { status: 201, schema: CLAIM_SCHEMA },
        },
        handler: async (c) => this.create(c.principal, c.body as DomainFields),
      },
      {
        method: 'GET',
        url: '/domains/:id/claim',
        doc: {
          summary: "Retrieve a domain's claim",
          description: 'The latest claim of the placeholder domain.',
          params,
          response: { status: 200, schema: CLAIM_SCHEMA },
        },
        handler: async (c) => ({ body: await this.get(c.principal, c.params.id!) }),
      },
      {
        method: 'POST',
        url: '/domains/:id/claim/verify',
        doc: {
          summary: "Verify a domain's claim",
          description:
            "Looks the claim's TXT record up now. Found: the domain moves to this account at once (`completed`): the holder's domain, its DKIM key and its records are deleted, this account's placeholder becomes the domain, to verify with POST /domains/:id/verify once its new records are published. Not found: stays `pending`, with the reason in `failure_reason`. `blocked` (`pending_scheduled_emails`) while the holder still has mail from the domain to send.",
          params,
          response: { status: 200, schema: CLAIM_SCHEMA },
        },
        handler: async (c) => ({ body: await this.verify(c.principal, c.params.id!) }),
      },
    ];
  }
}
