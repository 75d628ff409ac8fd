// Domains: the /domains routes. A domain gets its own 2048-bit DKIM key at creation; the
// records it must publish point at this installation; verify looks them up through
// POSTLINE_DNS_SERVERS. Every change records a domain.* event in its own transaction.
import crypto from 'node:crypto';
import { ApiError, notFound, validation } from '../api/errors.js';
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Principal, Route } from '../api/route.js';
import { deletedObject, objectId, uuid } from '../api/schema.js';
import type { Db, Queryable } from '../db/database.js';
import type { DnsResolver } from '../dns/resolver.js';
import { recordEvents } from '../events/record-events.js';
import { cancelClaims } from './claim-rows.js';
import { expectedRecords, type RecordTargets, verifyRecords } from './dns-records.js';
import {
  checkOutboundIps,
  CREATE_DOMAIN_SCHEMA,
  type DomainFields,
  type DomainSettings,
  OUTBOUND_IPS_SCHEMA,
  parseDomainName,
  parseRegion,
  returnPathOf,
  settingsOf,
  UPDATE_DOMAIN_SCHEMA,
} from './domain-fields.js';
import { releaseWaitingForNextDay } from '../queue/warmup-release.js';
import { checkWarmup } from '../warmup/warmup-settings.js';
import { WARMUP_SCHEMA, warmupProgress } from '../warmup/warmup-progress.js';
import {
  type AccountDomainRow,
  CREATED_DOMAIN_SCHEMA,
  DOMAIN_COLUMNS,
  DOMAIN_SCHEMA,
  DOMAIN_SUMMARY_SCHEMA,
  type DomainRow,
  domainDetail,
  domainEventData,
  domainSummary,
} from './domain-view.js';
import { type DkimRotation, DKIM_KEYS_SCHEMA, dkimKeys, newDkimKey, recordFirstDkimKey } from './dkim-rotation.js';
import { DOMAIN_BLOCKLISTS_SCHEMA, domainBlocklists } from '../blocklists/view.js';

const DKIM_SELECTOR = 'postline';
/** The path parameter of the routes about one domain. */
const ID = { id: uuid() };

interface DomainsDeps {
  db: Db;
  dns: DnsResolver;
  /** Where the records point: the SMTP host name (SPF, return-path MX, receiving MX) and the public host (tracking CNAME). */
  hosts: RecordTargets;
  /** POSTLINE_SANDBOX: domains created now are marked sandboxed (they send without DNS). */
  sandbox?: boolean;
  /** POSTLINE_OUTBOUND_IPS: the addresses a domain may be pinned to (any address when empty). */
  outboundIps?: string[];
  /** DKIM key rotations: verify also looks for a pending key's record. */
  dkimRotation?: DkimRotation;
}

interface NewDomain {
  name: string;
  region: string;
  returnPath: string;
  settings: DomainSettings;
  sandboxed?: boolean;
  /** A claim's placeholder (domain-claims.ts): the account's only once its claim completes. */
  placeholder?: boolean;
}

/**
 * Writes a domain with a fresh DKIM key, warming up from now on (src/warmup/; a sandboxed
 * domain sends only to the sandbox and does not) and records domain.created, in `q`'s transaction;
 * undefined when the name is registered already (held by any account: held names are unique;
 * or a placeholder of this account's claim, one row per name and account).
 */
export async function insertDomain(q: Queryable, accountId: string, domain: NewDomain, hosts: RecordTargets): Promise<AccountDomainRow | undefined> {
  const { publicKey, sealedPrivateKey } = await newDkimKey();
  const { settings } = domain;
  const inserted = await q.one<AccountDomainRow>(
    `INSERT INTO domains (id, account_id, name, region, custom_return_path, open_tracking, click_tracking, tls,
       sending_enabled, receiving_enabled, tracking_subdomain, dkim_selector, dkim_private_key, dkim_public_key, sandboxed, warmup_started_at, placeholder)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, CASE WHEN $15 OR $16 THEN NULL ELSE now() END, $16)
     ON CONFLICT DO NOTHING
     RETURNING account_id, ${DOMAIN_COLUMNS}`,
    [
      crypto.randomUUID(),
      accountId,
      domain.name,
      domain.region,
      domain.returnPath,
      settings.openTracking ?? false,
      settings.clickTracking ?? false,
      settings.tls ?? 'opportunistic',
      settings.sending ?? true,
      settings.receiving ?? false,
      settings.trackingSubdomain ?? null,
      DKIM_SELECTOR,
      sealedPrivateKey,
      publicKey,
      domain.sandboxed ?? false,
      domain.placeholder ?? false,
    ],
  );
  if (inserted) {
    await recordFirstDkimKey(q, inserted.id, DKIM_SELECTOR, publicKey);
    await recordEvents(q, [{ accountId, type: 'domain.created', data: domainEventData(inserted, hosts) }]);
  }
  return inserted;
}

/**
 * POSTLINE_SANDBOX: the sender domains `names` that the account does not have yet, created on
 * first use (sandboxed, with the defaults of POST /domains), so any domain sends at once.
 */
export async function createSandboxDomains(db: Db, accountId: string, names: string[], hosts: RecordTargets): Promise<void> {
  for (const name of names) {
    await db.tx((q) => insertDomain(q, accountId, { name, region: 'us-east-1', returnPath: 'send', settings: {}, sandboxed: true }, hosts));
  }
}

export class Domains {
  constructor(private deps: DomainsDeps) {}

  /** `id`: a route's `:id`, a UUID its schema checked. */
  private async find(q: Queryable, principal: Principal, id: string, lock = false): Promise<DomainRow> {
    const row = await q.one<DomainRow>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = $1 AND account_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
      id,
      principal.accountId,
    ]);
    if (!row) throw notFound('Domain');
    return row;
  }

  private async event(q: Queryable, type: 'domain.created' | 'domain.updated' | 'domain.deleted', row: AccountDomainRow): Promise<void> {
    await recordEvents(q, [{ accountId: row.account_id, type, data: domainEventData(row, this.deps.hosts) }]);
  }

  /** `fields` passed CREATE_DOMAIN_SCHEMA (api/request-schema.ts). */
  async create(principal: Principal, fields: DomainFields) {
    const name = parseDomainName(fields.name!);
    const region = parseRegion(fields.region);
    const returnPath = returnPathOf(fields);
    const settings = settingsOf(fields);
    const row = await this.deps.db.tx(async (q) => {
      const inserted = await insertDomain(q, principal.accountId, { name, region, returnPath, settings, sandboxed: this.deps.sandbox }, this.deps.hosts);
      if (!inserted) throw new ApiError('validation_error', `The \`${name}\` domain has been registered already.`, 403);
      return inserted;
    });
    const { object: _object, ...detail } = domainDetail(row, this.deps.hosts);
    return detail;
  }

  /** `fields` passed UPDATE_DOMAIN_SCHEMA (api/request-schema.ts). */
  async update(principal: Principal, id: string, fields: DomainFields) {
    const s: DomainSettings = settingsOf(fields);
    const warmup = checkWarmup(fields.warmup);
    const pin = checkOutboundIps(fields.outbound_ips, this.deps.outboundIps ?? []);
    await this.deps.db.tx(async (q) => {
      const before = await this.find(q, principal, id, true);
      const row = await q.one<AccountDomainRow>(
        `UPDATE domains SET open_tracking = COALESCE($3, open_tracking), click_tracking = COALESCE($4, click_tracking),
           tls = COALESCE($5, tls), sending_enabled = COALESCE($6, sending_enabled), receiving_enabled = COALESCE($7, receiving_enabled),
           tracking_subdomain = COALESCE($8, tracking_subdomain),
           -- A new tracking host is checked anew before links use it.
           record_status = CASE WHEN $8::text IS DISTINCT FROM tracking_subdomain AND $8 IS NOT NULL THEN record_status - 'tracking' ELSE record_status END,
           warmup_started_at = CASE $9::boolean WHEN true THEN COALESCE(warmup_started_at, now()) WHEN false THEN NULL ELSE warmup_started_at END,
           warmup_schedule = CASE WHEN $10 THEN $11::jsonb ELSE warmup_schedule END,
           outbound_ips = CASE WHEN $12 THEN $13::text[] ELSE outbound_ips END,
           warmup_cap_transactional = COALESCE($14, warmup_cap_transactional)
         WHERE id = $1 AND account_id = $2 RETURNING account_id, ${DOMAIN_COLUMNS}`,
        [
          id,
          principal.accountId,
          s.openTracking ?? null,
          s.clickTracking ?? null,
          s.tls ?? null,
          s.sending ?? null,
          s.receiving ?? null,
          s.trackingSubdomain ?? null,
          warmup.enabled ?? null,
          warmup.schedule !== undefined,
          warmup.schedule ? JSON.stringify(warmup.schedule) : null,
          pin !== undefined,
          pin ?? null,
          warmup.cap_transactional ?? null,
        ],
      );
      // A new schedule may raise today's cap, turning warm-up off lifts it, and cap_transactional false lets
      // transactional mail through: what waits for tomorrow goes now.
      if (before.warmup_started_at && (warmup.schedule !== undefined || warmup.enabled === false || warmup.cap_transactional === false)) {
        await releaseWaitingForNextDay(q, principal.accountId, id, before.warmup_started_at);
      }
      await this.event(q, 'domain.updated', row!);
    });
    return { object: 'domain', id };
  }

  async verify(principal: Principal, id: string) {
    const current = await this.find(this.deps.db, principal, id);
    if (current.placeholder) {
      throw validation(`The \`${current.name}\` domain is still claimed from another account: verify its claim first (POST /domains/${id}/claim/verify).`);
    }
    const records = expectedRecords(
      {
        name: current.name,
        dkimSelector: current.dkim_selector,
        dkimPublicKey: current.dkim_public_key,
        returnPath: current.custom_return_path,
        receivingEnabled: current.receiving_enabled,
        trackingSubdomain: current.tracking_subdomain,
      },
      this.deps.hosts,
    );
    const result = await verifyRecords(this.deps.dns, records, current.name);
    await this.deps.dkimRotation?.check(id);
    await this.deps.db.tx(async (q) => {
      const row = await q.one<AccountDomainRow>(
        `UPDATE domains SET status = $3, record_status = $4,
           verified_at = CASE WHEN $3 = 'verified' THEN COALESCE(verified_at, now()) ELSE verified_at END
         WHERE id = $1 AND account_id = $2 RETURNING account_id, ${DOMAIN_COLUMNS}`,
        [id, principal.accountId, result.status, JSON.stringify(result.recordStatus)],
      );
      if (!row) throw notFound('Domain');
      await this.event(q, 'domain.updated', row);
    });
    return { object: 'domain', id };
  }

  async remove(principal: Principal, id: string) {
    await this.deps.db.tx(async (q) => {
      const row = await this.find(q, principal, id, true);
      await q.query('DELETE FROM domains WHERE id = $1', [id]);
      // Deleting a claim's placeholder cancels the claim, as at Resend.
      if (row.placeholder) await cancelClaims(q, principal.accountId, id);
      await this.event(q, 'domain.deleted', { ...row, account_id: principal.accountId });
    });
    return { object: 'domain', id, deleted: true };
  }

  routes(): Route[] {
    const db = this.deps.db;
    return [
      {
        method: 'POST',
        url: '/domains',
        doc: {
          summary: 'Create a domain',
          body: CREATE_DOMAIN_SCHEMA,
          response: { status: 201, schema: CREATED_DOMAIN_SCHEMA },
        },
        handler: async (c) => ({ status: 201, body: await this.create(c.principal, c.body as DomainFields) }),
      },
      {
        method: 'GET',
        url: '/domains',
        doc: listDoc('List domains', DOMAIN_SUMMARY_SCHEMA, { defaultLimit: 100 }),
        handler: async ({ principal, query }) => {
          const { rows, hasMore } = await listPage<DomainRow>(db, {
            table: 'domains',
            columns: DOMAIN_COLUMNS,
            where: 'account_id = $1',
            params: [principal.accountId],
            page: parsePage(query, { defaultLimit: 100 }),
          });
          return { body: envelope(rows.map(domainSummary), hasMore) };
        },
      },
      {
        method: 'GET',
        url: '/domains/:id',
        doc: {
          summary: 'Retrieve a domain',
          params: ID,
          response: {
            status: 200,
            schema: {
              ...DOMAIN_SCHEMA,
              properties: {
                ...DOMAIN_SCHEMA.properties,
                warmup: WARMUP_SCHEMA,
                outbound_ips: OUTBOUND_IPS_SCHEMA,
                dkim_keys: DKIM_KEYS_SCHEMA,
                blocklists: DOMAIN_BLOCKLISTS_SCHEMA,
              },
            },
          },
        },
        handler: async ({ principal, params }) => {
          const row = await this.find(db, principal, params.id!);
          const detail = domainDetail(row, this.deps.hosts);
          const keys = await dkimKeys(db, row.id);
          // A pending key's record is one to publish, beside the signing key's.
          const pending = keys.find((k) => k.status === 'pending');
          const records = pending ? [...detail.records, { record: 'DKIM', ...pending.record, ttl: 'Auto', status: pending.record_status }] : detail.records;
          const blocklists = await domainBlocklists(db, row);
          return { body: { ...detail, records, warmup: await warmupProgress(db, row), outbound_ips: row.outbound_ips, dkim_keys: keys, blocklists } };
        },
      },
      {
        method: 'PATCH',
        url: '/domains/:id',
        doc: { summary: "Update a domain's settings", params: ID, body: UPDATE_DOMAIN_SCHEMA, response: { status: 200, schema: objectId('domain') } },
        handler: async (c) => ({ body: await this.update(c.principal, c.params.id!, c.body as DomainFields) }),
      },
      {
        method: 'DELETE',
        url: '/domains/:id',
        doc: { summary: 'Delete a domain', params: ID, response: { status: 200, schema: deletedObject('domain') } },
        handler: async (c) => ({ body: await this.remove(c.principal, c.params.id!) }),
      },
      {
        method: 'POST',
        url: '/domains/:id/verify',
        doc: { summary: "Check a domain's DNS records now", params: ID, response: { status: 200, schema: objectId('domain') } },
        handler: async (c) => ({ body: await this.verify(c.principal, c.params.id!) }),
      },
      ...(this.deps.dkimRotation?.routes() ?? []),
    ];
  }
}
