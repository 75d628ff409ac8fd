// The at-least-once contract of leased work (src/concurrency/leased-work.ts), checked once for
// each of the seven tables claimed under it, each through its queue's own claim: a claim owns
// its row (claimed_by, lease, token); another claimer skips the row while a claim holds it locked
// and while its lease lasts; releasing a dead node's claims makes the row due at once with its
// claim cleared, and touches no other node's; and once the row is claimed anew, the old claim's
// fenced write writes nothing while the new one's lands. On a fresh database, embedded or
// TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { claimImport, importLeases } from '../../src/audience/imports/import-worker.js';
import { claimDueSteps, stepLeases } from '../../src/automations/claim-steps.js';
import { broadcastLeases, claimBroadcast } from '../../src/broadcasts/fan-out.js';
import type { LeasedWork } from '../../src/concurrency/leased-work.js';
import { openDb, type Db } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { claimIdempotencyKey, idempotencyLeases } from '../../src/idempotency/idempotency-keys.js';
import { agentJobLeases, claimAgentJobs } from '../../src/inboxes/agent-jobs.js';
import { claimDue as claimDeliveries, deliveryLeases } from '../../src/queue/claim.js';
import { claimDue as claimMessages, webhookMessageLeases } from '../../src/webhooks/claim.js';
import { LEASED_TABLES } from '../../src/worker-role.js';
import { freshDatabase } from '../db/fresh-database.js';

const LEASE_MS = 60_000;

/** What a queue's own claim took: the row's key, its claim's token, and that claim's fenced write (rows written). */
interface Claimed {
  key: string | number;
  token: string | Date;
  write(): Promise<number>;
}

interface LeasedQueue {
  name: string;
  work: LeasedWork<string | number, string | Date>;
  /** Adds one due row; returns its key. */
  addDue(db: Db, accountId: string): Promise<string | number>;
  /** The row of `key`, for SQL over it. */
  where(key: string | number): { sql: string; params: unknown[] };
  /** The queue's claim by `node`. */
  claim(db: Db, node: string): Promise<Claimed[]>;
  /** Whether its claim takes rows with SKIP LOCKED (idempotency keys are claimed by an upsert). */
  skipsLocked: boolean;
}

/** The fenced give-back of the primitive: the write that ends a claim, as the queues' give-backs and outcomes do. */
const settled = (db: Db, work: LeasedWork<string | number, string | Date>, key: string | number, token: string | Date) => async (): Promise<number> =>
  (await work.settle(db, [{ key, token }])).length;

const byId = (key: string | number) => ({ sql: 'id = $1', params: [key] });
const one = async (db: Db, sql: string, params: unknown[]) => (await db.query<{ id: string | number }>(sql, params))[0]!.id;

const queues: LeasedQueue[] = [
  {
    name: 'deliveries',
    work: deliveryLeases as LeasedQueue['work'],
    skipsLocked: true,
    where: byId,
    async addDue(db, accountId) {
      const emailId = await one(
        db,
        `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, message_id, last_event)
         VALUES (gen_random_uuid(), $1, 'a@example.com', ARRAY['b@example.net'], 's', '<m@example.com>', 'sent') RETURNING id`,
        [accountId],
      );
      return one(db, `INSERT INTO deliveries (email_id, account_id, recipient, domain) VALUES ($1, $2, 'b@example.net', 'example.net') RETURNING id`, [
        emailId,
        accountId,
      ]);
    },
    async claim(db, node) {
      const rows = await claimDeliveries(db, { limit: 10, leaseMs: LEASE_MS, maxBytes: 1_000_000, nodeId: node });
      return rows.map((r) => ({ key: r.id, token: r.leaseUntil, write: settled(db, this.work, r.id, r.leaseUntil) }));
    },
  },
  {
    name: 'webhook messages',
    work: webhookMessageLeases as LeasedQueue['work'],
    skipsLocked: true,
    where: byId,
    async addDue(db, accountId) {
      const webhookId = await one(
        db,
        `INSERT INTO webhooks (id, account_id, endpoint, events, signing_secret) VALUES (gen_random_uuid(), $1, 'https://example.com/hook', ARRAY['email.sent'], 'whsec_test') RETURNING id`,
        [accountId],
      );
      const eventId = await one(db, `INSERT INTO events (account_id, type, data) VALUES ($1, 'email.sent', '{}') RETURNING id`, [accountId]);
      return one(
        db,
        `INSERT INTO webhook_messages (id, webhook_id, account_id, event_id, event_type, next_attempt_at) VALUES ($1, $2, $3, $4, 'email.sent', now()) RETURNING id`,
        [`msg_${crypto.randomUUID()}`, webhookId, accountId, eventId],
      );
    },
    async claim(db, node) {
      const rows = await claimMessages(db, { limit: 10, leaseMs: LEASE_MS, rooms: { endpoints: [], rooms: [] }, firstRoom: 10, nodeId: node });
      return rows.map((m) => ({ key: m.id, token: m.leaseUntil, write: settled(db, this.work, m.id, m.leaseUntil) }));
    },
  },
  {
    name: 'contact imports',
    work: importLeases as LeasedQueue['work'],
    skipsLocked: true,
    where: byId,
    addDue: (db, accountId) =>
      one(db, `INSERT INTO contact_imports (id, account_id, status) VALUES (gen_random_uuid(), $1, 'queued') RETURNING id`, [accountId]),
    async claim(db, node) {
      const claimed = await claimImport(db, node);
      return claimed ? [{ key: claimed.job.id, token: claimed.job.leaseToken, write: settled(db, this.work, claimed.job.id, claimed.job.leaseToken) }] : [];
    },
  },
  {
    name: 'broadcast fan-out',
    work: broadcastLeases as LeasedQueue['work'],
    skipsLocked: true,
    where: byId,
    addDue: (db, accountId) =>
      one(
        db,
        `INSERT INTO broadcasts (id, account_id, status, scheduled_at) VALUES (gen_random_uuid(), $1, 'scheduled', now() - interval '1 minute') RETURNING id`,
        [accountId],
      ),
    async claim(db, node) {
      const b = await claimBroadcast(db, LEASE_MS, node);
      return b ? [{ key: b.id, token: b.claimToken, write: settled(db, this.work, b.id, b.claimToken) }] : [];
    },
  },
  {
    name: 'automation steps',
    work: stepLeases as LeasedQueue['work'],
    skipsLocked: true,
    where: byId,
    async addDue(db, accountId) {
      const automationId = await one(
        db,
        `INSERT INTO automations (id, account_id, name, status, steps, connections, trigger_event)
         VALUES (gen_random_uuid(), $1, 'a', 'enabled', '[]', '[]', 'signed.up') RETURNING id`,
        [accountId],
      );
      const runId = await one(
        db,
        `INSERT INTO automation_runs (id, automation_id, account_id, contact_id, steps, connections, context, status)
         VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), '[]', '[]', '{}', 'running') RETURNING id`,
        [automationId, accountId],
      );
      return one(
        db,
        `INSERT INTO automation_run_steps (id, run_id, account_id, key, type, position, status, due_at)
         VALUES (gen_random_uuid(), $1, $2, 'wait', 'delay', 1, 'pending', now()) RETURNING id`,
        [runId, accountId],
      );
    },
    async claim(db, node) {
      const steps = await claimDueSteps(db, 10, LEASE_MS, node);
      return steps.map((s) => ({ key: s.id, token: s.claimToken, write: settled(db, this.work, s.id, s.claimToken) }));
    },
  },
  {
    name: 'inbox agent jobs',
    work: agentJobLeases as LeasedQueue['work'],
    skipsLocked: true,
    where: byId,
    async addDue(db, accountId) {
      const domainId = await one(
        db,
        `INSERT INTO domains (id, account_id, name, dkim_selector, dkim_private_key, dkim_public_key)
         VALUES (gen_random_uuid(), $1, 'example.com', 's', 'private', 'public') RETURNING id`,
        [accountId],
      );
      const inboxId = await one(
        db,
        `INSERT INTO inboxes (id, account_id, domain_id, email_address, name) VALUES (gen_random_uuid(), $1, $2, 'help@example.com', 'Help') RETURNING id`,
        [accountId, domainId],
      );
      const threadId = await one(
        db,
        `INSERT INTO inbox_threads (id, inbox_id, account_id, thread_subject, folder) VALUES (gen_random_uuid(), $1, $2, 'Hello', 'inbox') RETURNING id`,
        [inboxId, accountId],
      );
      return one(
        db,
        `INSERT INTO inbox_agent_jobs (id, thread_id, inbox_id, account_id, message_id, due_at)
         VALUES (gen_random_uuid(), $1, $2, $3, gen_random_uuid(), now()) RETURNING id`,
        [threadId, inboxId, accountId],
      );
    },
    async claim(db, node) {
      const jobs = await claimAgentJobs(db, 10, LEASE_MS, node);
      return jobs.map((j) => ({ key: j.id, token: j.claimToken, write: settled(db, this.work, j.id, j.claimToken) }));
    },
  },
  (() => {
    const accountOf = new Map<string, string>();
    const key = `order-${crypto.randomUUID()}`;
    return {
      name: 'idempotency keys',
      work: idempotencyLeases as LeasedQueue['work'],
      skipsLocked: false,
      where: () => ({ sql: 'account_id = $1 AND endpoint = $2 AND key = $3', params: [accountOf.get(key), 'POST /emails', key] }),
      // A key is claimed by the request that first sends it; there is no row before.
      async addDue(_db: Db, accountId: string) {
        accountOf.set(key, accountId);
        return key;
      },
      async claim(db: Db, node: string): Promise<Claimed[]> {
        const claimed = await claimIdempotencyKey(db, accountOf.get(key)!, 'POST /emails', key, { to: 'b@example.net' }, node).catch((err) => {
          if (err.errorName === 'concurrent_idempotent_requests') return undefined; // held by another request's claim
          throw err;
        });
        if (claimed?.kind !== 'claimed') return [];
        const [row] = await db.query<{ claim_token: string }>('SELECT claim_token FROM idempotency_keys WHERE account_id = $1 AND endpoint = $2 AND key = $3', [
          accountOf.get(key),
          'POST /emails',
          key,
        ]);
        const write = () =>
          claimed.save(db, 200, { id: 'email' }).then(
            () => 1,
            (err) => {
              if (err.errorName === 'concurrent_idempotent_requests') return 0; // fenced: another request's claim holds the key
              throw err;
            },
          );
        return [{ key, token: row!.claim_token, write }];
      },
    };
  })(),
];

const sameToken = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b);

describe('leased work: the at-least-once contract of every leased table', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Db;
  let accountId: string;
  before(async () => {
    database = await freshDatabase();
    db = openDb(database.url, { max: 4 });
    await migrate(db);
    accountId = (await db.query<{ id: string }>(`INSERT INTO accounts (id, name) VALUES (gen_random_uuid(), 'leases') RETURNING id`))[0]!.id;
  });
  after(async () => {
    await db?.close();
    await database?.drop();
  });

  it('covers every table whose claims a dead node’s reaping releases', () => {
    assert.deepEqual(new Set(queues.map((q) => q.work)), new Set<unknown>(LEASED_TABLES));
    assert.equal(queues.length, 7);
  });

  for (const queue of queues) {
    describe(queue.name, () => {
      const nodeA = crypto.randomUUID();
      const nodeB = crypto.randomUUID();
      let key: string | number;
      let first: Claimed;
      let second: Claimed;
      const { table, token, lease } = queue.work.described;
      const row = async () => {
        const where = queue.where(key);
        const [r] = await db.query<{ claimed_by: string | null; token: string | Date | null; leased?: boolean }>(
          `SELECT claimed_by, ${token} AS token${lease ? `, ${lease} AS lease, coalesce(${lease} > now(), false) AS leased` : ''} FROM ${table} WHERE ${where.sql}`,
          where.params,
        );
        return r;
      };

      before(async () => {
        key = await queue.addDue(db, accountId);
      });

      if (queue.skipsLocked) {
        it('a claimer skips a due row another claim holds locked, without waiting', async () => {
          const where = queue.where(key);
          await db.tx(async (q) => {
            await q.query(`SELECT 1 FROM ${table} WHERE ${where.sql} FOR UPDATE`, where.params);
            const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the claim waited on the lock')), 5_000).unref());
            assert.deepEqual(await Promise.race([queue.claim(db, nodeB), timeout]), []);
          });
        });
      }

      it('a claim owns the row: claimed_by, its token, a lease that lasts', async () => {
        const claimed = await queue.claim(db, nodeA);
        assert.equal(claimed.length, 1);
        first = claimed[0]!;
        assert.equal(first.key, key);
        const r = await row();
        assert.equal(r.claimed_by, nodeA);
        assert.ok(r.token !== null && sameToken(r.token, first.token), `the row's token ${r.token} is the claim's ${first.token}`);
        if (lease) assert.equal(r.leased, true);
      });

      it('another claimer skips it while the lease lasts', async () => {
        assert.deepEqual(await queue.claim(db, nodeB), []);
      });

      it('releasing a dead node’s claims makes it due at once, the claim cleared; other nodes’ claims stay', async () => {
        assert.equal(await queue.work.releaseOfNodes(db, [nodeB, crypto.randomUUID()]), 0, 'no claim of these nodes');
        assert.equal((await row()).claimed_by, nodeA);
        assert.equal(await queue.work.releaseOfNodes(db, [nodeA]), 1);
        const r = await row();
        if (r) {
          assert.equal(r.claimed_by, null);
          assert.ok(!sameToken(r.token, first.token), 'the token moved on');
          if (lease) assert.equal(r.leased, false);
        } // else forgotten (an idempotency key's claim): the next request claims it anew
        const claimed = await queue.claim(db, nodeB);
        assert.equal(claimed.length, 1, 'due again');
        second = claimed[0]!;
        assert.equal(second.key, key);
        assert.equal((await row()).claimed_by, nodeB);
      });

      it('the old claim’s fenced write writes nothing; the new claim’s lands', async () => {
        assert.equal(await first.write(), 0, 'stale claim fenced');
        assert.equal((await row()).claimed_by, nodeB);
        assert.equal(await second.write(), 1, 'the fresh claim writes');
        assert.equal((await row()).claimed_by, null);
        assert.equal(await second.write(), 0, 'a claim ends once');
      });
    });
  }
});
