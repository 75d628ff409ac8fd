// DKIM key rotation (POST /domains/:id/dkim/rotate, Postline's addition): a new key under a new
// selector waits, `pending`, until its TXT record is published; mail keeps being signed with the
// current key meanwhile. Once the record is found (at POST /domains/:id/verify, or by the worker
// role's check every minute) the new key signs from then on, and the one it replaced is
// `retiring`: its record should stay published until retire_at, so mail signed with it and still
// on its way verifies; retire_at is at least the max queue age after the switch, so no queued
// message signed with it outlives it. Then it is `retired`. Each key is in domain_dkim_keys;
// the signing key stays in domains' dkim_* columns, which signing reads.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { notFound, validation } from '../api/errors.js';
import { restTimestamp } from '../api/format.js';
import type { Principal, Route } from '../api/route.js';
import { array, constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Db, Queryable } from '../db/database.js';
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';
import { recordEvents } from '../events/record-events.js';
import type { Logger } from '../logger.js';
import { sealSecret } from '../secrets/keyring.js';
import { type RecordTargets, recordTargets } from './dns-records.js';
import { type AccountDomainRow, DOMAIN_COLUMNS, domainEventData } from './domain-view.js';

const generateKeyPair = promisify(crypto.generateKeyPair);
const SELECTOR_BASE = 'postline';
const CHECK_MS = 60_000;

/** A new 2048-bit RSA key: the public key as a DKIM record's p= (base64 DER), the private key sealed. */
export async function newDkimKey(): Promise<{ publicKey: string; sealedPrivateKey: string }> {
  const { publicKey, privateKey } = await generateKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: (publicKey as Buffer).toString('base64'), sealedPrivateKey: sealSecret(privateKey as string, 'dkim-private-key') };
}

/** A domain's first key, in its history (insertDomain). */
export async function recordFirstDkimKey(q: Queryable, domainId: string, selector: string, publicKey: string): Promise<void> {
  await q.query(`INSERT INTO domain_dkim_keys (domain_id, selector, public_key, status, activated_at) VALUES ($1, $2, $3, 'active', now())`, [
    domainId,
    selector,
    publicKey,
  ]);
}

const KEY_SCHEMA = object({
  selector: string(),
  status: oneOfValues(['pending', 'active', 'retiring', 'retired']),
  record: object({ name: string(), type: constant('TXT'), value: string() }),
  record_status: oneOfValues(['not_started', 'pending', 'verified', 'failed', 'temporary_failure']),
  created_at: restTime(),
  activated_at: nullable(restTime()),
  retire_at: nullable(restTime()),
  retired_at: nullable(restTime()),
});
export const DKIM_KEYS_SCHEMA = array(KEY_SCHEMA, {
  description:
    "Postline: the domain's DKIM keys, newest first: a pending one waits for its record, the active one signs, a retiring one's record stays published until retire_at.",
});

interface DkimKeyRow {
  selector: string;
  status: string;
  public_key: string;
  created_at: Date;
  activated_at: Date | null;
  retire_at: Date | null;
  retired_at: Date | null;
  record_status: string;
}

/** The domain's keys, newest first, as GET /domains/:id shows them. */
export async function dkimKeys(q: Queryable, domainId: string) {
  const rows = await q.query<DkimKeyRow>(
    // The active key's record is the domain's DKIM record: its status is the domain's last verification's.
    `SELECT k.selector, k.status, k.public_key, k.created_at, k.activated_at, k.retire_at, k.retired_at,
            CASE WHEN k.status = 'active' THEN coalesce(d.record_status->>'dkim', k.record_status) ELSE k.record_status END AS record_status
       FROM domain_dkim_keys k JOIN domains d ON d.id = k.domain_id
      WHERE k.domain_id = $1 ORDER BY k.created_at DESC, k.selector DESC`,
    [domainId],
  );
  return rows.map((r) => ({
    selector: r.selector,
    status: r.status,
    record: { name: `${r.selector}._domainkey`, type: 'TXT' as const, value: `p=${r.public_key}` },
    record_status: r.record_status,
    created_at: restTimestamp(r.created_at),
    activated_at: r.activated_at && restTimestamp(r.activated_at),
    retire_at: r.retire_at && restTimestamp(r.retire_at),
    retired_at: r.retired_at && restTimestamp(r.retired_at),
  }));
}

/** The rotation's dependencies from the config: the retiring time is at least the max queue age. */
export function dkimRotationDeps(
  db: Db,
  dns: DnsResolver,
  config: { smtpHostname: string; publicUrl: string; dkimRetireAfterMs: number; maxQueueAgeMs: number },
  logger?: Logger,
): RotationDeps {
  return { db, dns, hosts: recordTargets(config), retireAfterMs: Math.max(config.dkimRetireAfterMs, config.maxQueueAgeMs), logger };
}

/** A domain as a rotation starts. */
interface RotatedDomainRow {
  id: string;
  placeholder: boolean;
  sandboxed: boolean;
}

/** A pending key, with its domain's name. */
interface PendingKeyRow {
  selector: string;
  public_key: string;
  name: string;
}

interface PrivateKeyRow {
  /** Sealed; kept only while the key is pending. */
  private_key: string | null;
}

interface RotationDeps {
  db: Db;
  dns: DnsResolver;
  hosts: RecordTargets;
  /** POSTLINE_DKIM_RETIRE_AFTER, raised to POSTLINE_MAX_QUEUE_AGE when shorter (ms). */
  retireAfterMs: number;
  logger?: Logger;
}

export class DkimRotation {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private deps: RotationDeps) {}

  /** Starts a rotation, or answers the one under way (a second request changes nothing). */
  async rotate(principal: Principal, id: string) {
    const row = await this.deps.db.one<RotatedDomainRow>('SELECT id, placeholder, sandboxed FROM domains WHERE id = $1 AND account_id = $2', [
      id,
      principal.accountId,
    ]);
    if (!row) throw notFound('Domain');
    if (row.placeholder) throw validation('The domain is still claimed from another account: verify its claim first.');
    const underWay = await this.deps.db.one(`SELECT 1 FROM domain_dkim_keys WHERE domain_id = $1 AND status = 'pending'`, [id]);
    // A key is made only for a new rotation (the unique pending index keeps a racing second one out).
    if (!underWay) await this.startRotation(id);
    // A sandboxed domain publishes nothing (the sandbox's catcher reads its keys): the new one signs at once.
    if (row.sandboxed) await this.check(id, { published: true });
    const keys = await dkimKeys(this.deps.db, id);
    const pending = keys.find((k) => k.status === 'pending') ?? null;
    return { object: 'dkim_rotation', domain_id: id, pending, keys };
  }

  private async startRotation(id: string): Promise<void> {
    const { publicKey, sealedPrivateKey } = await newDkimKey();
    await this.deps.db.tx(async (q) => {
      await q.query('SELECT id FROM domains WHERE id = $1 FOR UPDATE', [id]);
      const [{ n }] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM domain_dkim_keys WHERE domain_id = $1', [id]);
      await q.query(
        `INSERT INTO domain_dkim_keys (domain_id, selector, public_key, private_key, status) VALUES ($1, $2, $3, $4, 'pending')
         ON CONFLICT DO NOTHING`,
        [id, `${SELECTOR_BASE}${n + 1}`, publicKey, sealedPrivateKey],
      );
    });
  }

  /**
   * Looks a domain's pending key's record up; once it is published, switches signing to it and
   * starts retiring the key it replaces. True when it switched.
   */
  async check(domainId: string, options: { published?: boolean } = {}): Promise<boolean> {
    const { db, dns } = this.deps;
    const pending = await db.one<PendingKeyRow>(
      `SELECT k.selector, k.public_key, d.name FROM domain_dkim_keys k JOIN domains d ON d.id = k.domain_id
        WHERE k.domain_id = $1 AND k.status = 'pending'`,
      [domainId],
    );
    if (!pending) return false;
    const status = options.published ? 'verified' : await lookUp(dns, `${pending.selector}._domainkey.${pending.name}`, pending.public_key);
    if (status !== 'verified') {
      await db.query(`UPDATE domain_dkim_keys SET record_status = $3 WHERE domain_id = $1 AND selector = $2 AND status = 'pending'`, [
        domainId,
        pending.selector,
        status,
      ]);
      return false;
    }
    const switched = await db.tx(async (q) => {
      // Locked and read again: another node may have switched it meanwhile.
      const key = await q.one<PrivateKeyRow>(
        `SELECT private_key FROM domain_dkim_keys WHERE domain_id = $1 AND selector = $2 AND status = 'pending' FOR UPDATE`,
        [domainId, pending.selector],
      );
      if (!key) return undefined;
      await q.query(
        `UPDATE domain_dkim_keys k SET status = 'retiring', retire_at = now() + $2 * interval '1 millisecond',
                record_status = coalesce((SELECT d.record_status->>'dkim' FROM domains d WHERE d.id = k.domain_id), k.record_status)
          WHERE k.domain_id = $1 AND k.status = 'active'`,
        [domainId, this.deps.retireAfterMs],
      );
      await q.query(
        `UPDATE domain_dkim_keys SET status = 'active', activated_at = now(), private_key = NULL, record_status = 'verified'
          WHERE domain_id = $1 AND selector = $2`,
        [domainId, pending.selector],
      );
      const domain = await q.one<AccountDomainRow>(
        `UPDATE domains SET dkim_selector = $2, dkim_private_key = $3, dkim_public_key = $4,
                record_status = record_status || '{"dkim": "verified"}'::jsonb
          WHERE id = $1 RETURNING account_id, ${DOMAIN_COLUMNS}`,
        [domainId, pending.selector, key.private_key, pending.public_key],
      );
      await recordEvents(q, [{ accountId: domain!.account_id, type: 'domain.updated', data: domainEventData(domain!, this.deps.hosts) }]);
      return domain;
    });
    if (switched) this.deps.logger?.info({ domain: pending.name, selector: pending.selector }, 'DKIM: the new key signs from now on');
    return switched !== undefined;
  }

  /** Every pending rotation looked at, and retiring keys past their time retired (the worker role, every minute). */
  async checkAll(): Promise<void> {
    const { db } = this.deps;
    const pending = await db.query<{ domain_id: string }>(`SELECT domain_id FROM domain_dkim_keys WHERE status = 'pending' LIMIT 1000`);
    for (const { domain_id } of pending) await this.check(domain_id);
    await db.query(`UPDATE domain_dkim_keys SET status = 'retired', retired_at = now() WHERE status = 'retiring' AND retire_at <= now()`);
  }

  start(): void {
    const tick = () => {
      this.running = this.checkAll().catch((err) => this.deps.logger?.warn({ err }, 'checking DKIM rotations failed; trying again later'));
    };
    this.timer = setInterval(tick, CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  routes(): Route[] {
    return [
      {
        method: 'POST',
        url: '/domains/:id/dkim/rotate',
        doc: {
          summary: "Rotate a domain's DKIM key",
          description:
            "A new key under a new selector waits for its TXT record (`pending.record`); mail is signed with the current key until the record is found (POST /domains/:id/verify, or within a minute), then with the new one. The replaced key's record should stay published until its `retire_at`. A rotation under way is answered again, not started twice. A sandboxed domain switches at once (`pending` is null).",
          addition: true,
          params: { id: uuid() },
          response: {
            status: 200,
            schema: object({
              object: constant('dkim_rotation'),
              domain_id: uuid(),
              pending: nullable(KEY_SCHEMA),
              keys: DKIM_KEYS_SCHEMA,
            }),
          },
        },
        handler: async (c) => ({ body: await this.rotate(c.principal, c.params.id!) }),
      },
    ];
  }
}

/** A DKIM record's status: published with this key, or not (yet). */
async function lookUp(dns: DnsResolver, name: string, publicKey: string): Promise<string> {
  try {
    const txt = (await dns.txt(name, { fresh: true })).map((t) => t.replace(/\s+/g, ''));
    return txt.some((t) => t.split(';').includes(`p=${publicKey}`)) ? 'verified' : 'failed';
  } catch (err) {
    if (err instanceof DnsTemporaryError) return 'temporary_failure';
    throw err;
  }
}
