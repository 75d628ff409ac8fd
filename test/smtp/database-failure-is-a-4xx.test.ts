// When the database cannot take the message, the client is told to try again (4xx): never a
// 250 for something not stored, never a silent drop. The failure comes from outside, as an
// operator or a failover causes it: the server terminates Postline's connections and refuses
// new ones to its database (ALLOW_CONNECTIONS false), the same on the embedded server and on
// TEST_DATABASE_URL. Once the database is back, what was accepted is all there and delivered,
// and the same client's retry is accepted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { FROM, message, openSession, queuedId, sendRaw, smtpEmails, startSmtpTest, transport } from './support.js';

describe('SMTP: a database that goes away', () => {
  let t: TestPostline;
  /** A superuser session of our own, outside Postline's pools and its database. */
  let admin: pg.Client;
  let database: string;
  before(async () => {
    // A delivery attempt the outage interrupts is retried within the test.
    t = await startSmtpTest({ POSTLINE_RETRY_DELAYS: '1s' });
    // On the same server, from another database: a database cannot refuse its own sessions.
    // On a shared server not template1: CREATE DATABASE (another test file's, running beside
    // this one) refuses to copy a template anyone is connected to. The embedded server is this
    // file's own, and its one database is `postgres`.
    const url = new URL(t.postline.databaseUrl);
    database = decodeURIComponent(url.pathname.slice(1));
    url.pathname = database === 'postgres' ? '/template1' : '/postgres';
    admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
  });
  after(async () => {
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`).catch(() => {});
    await admin.end();
    await t.stop();
  });

  async function takeTheDatabaseAway(): Promise<void> {
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  }

  async function bringItBack(): Promise<void> {
    await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
  }

  it('answers 4xx while the database is away, keeps every message it accepted, and accepts the retry', async () => {
    const accepted: string[] = [];
    for (let i = 0; i < 3; i++) {
      const info = await transport(t).sendMail({ from: FROM, to: `before${i}@example.net`, subject: `Before ${i}`, text: 'x' });
      accepted.push(queuedId(info.response));
    }
    // A session authenticated and at DATA's door when the database goes.
    const session = await openSession(t, { token: t.apiKey });
    const rowsBefore = (await smtpEmails(t)).length;

    await takeTheDatabaseAway();
    try {
      const reply = await sendRaw(session, ['during@example.net'], message({ From: FROM, To: 'during@example.net', Subject: 'During' }));
      assert.match(reply, /^4\d\d /, reply);
      session.close();
      // A new client too: whichever step needs the database first answers 4xx.
      await assert.rejects(transport(t).sendMail({ from: FROM, to: 'during@example.net', subject: 'During', text: 'x' }), (err: any) => {
        assert.ok(err.responseCode >= 400 && err.responseCode < 500, err.response);
        return true;
      });
    } finally {
      await bringItBack();
    }
    // The pool reconnects by itself; the client's retry goes through.
    assert.equal((await eventually(() => smtpEmails(t), 30_000, 'the database back')).length, rowsBefore, 'nothing half-written');
    const info = await eventually(
      () => transport(t).sendMail({ from: FROM, to: 'during@example.net', subject: 'During', text: 'x' }),
      30_000,
      'a retry accepted once the database is back',
    );
    const retry = queuedId(info.response);
    const stored = (await smtpEmails(t)).map((row) => row.id);
    for (const id of [...accepted, retry]) assert.ok(stored.includes(id), `${id} kept`);
  });

  it('delivers every accepted message once the database is back', async () => {
    // At least once, since an attempt whose outcome the outage kept from being written is made again.
    const expected = ['before0@example.net', 'before1@example.net', 'before2@example.net', 'during@example.net'];
    await eventually(async () => expected.every((rcpt) => t.sink.messages.some((m) => m.to.includes(rcpt))), 60_000, 'every accepted message delivered').catch(
      async (err) => {
        const queue = await t.sql('SELECT recipient, status, attempts, next_attempt_at, last_response FROM deliveries ORDER BY recipient');
        throw new Error(`${err.message}: delivered ${JSON.stringify(t.sink.messages.map((m) => m.to))}; queue ${JSON.stringify(queue)}`);
      },
    );
  });

  it('writes an attempt the outage interrupted once the database is back, and gives back a claim it never heard of, sending nothing twice', async () => {
    const forgotten = 'before0@example.net';
    const sentBefore = t.sink.messages.filter((m) => m.to.includes(forgotten)).length;
    // An attempt in flight when the database goes: the MX host has the message and takes 3 s to
    // answer DATA; the database is away before the answer, so the outcome cannot be written then
    // (and the worker's claims fail meanwhile: it polls every 100 ms). It comes back only once the
    // worker has closed that idle connection (5 s after the answer): by then it has tried the write.
    t.sink.answerDelayMs = 3_000;
    try {
      const info = await transport(t).sendMail({ from: FROM, to: 'inflight@example.net', subject: 'In flight', text: 'x' });
      const inFlight = queuedId(info.response);
      await eventually(async () => t.sink.answering === 1, 30_000, 'the MX host to hold its answer');
      // A claim whose commit landed but whose answer was lost with the connection leaves this: a
      // row leased for five minutes to the live delivery worker (the one holding the attempt),
      // which does not know it holds it.
      const [claim] = await t.sql('SELECT claimed_by FROM deliveries WHERE email_id = $1', [inFlight]);
      assert.ok(claim?.claimed_by, 'the attempt claimed by the worker');
      await t.sql(`UPDATE deliveries SET status = 'queued', claimed_by = $1, next_attempt_at = now() + interval '5 minutes' WHERE recipient = $2`, [
        claim.claimed_by,
        forgotten,
      ]);
      const closedBefore = t.sink.closed;
      await takeTheDatabaseAway();
      try {
        assert.equal(t.sink.answering, 1, 'the database went away before the answer');
        await eventually(
          async () => t.sink.answering === 0 && t.sink.closed > closedBefore,
          20_000,
          'the answer given and the connection closed while the database is away',
        );
      } finally {
        await bringItBack();
      }
      const [delivery] = await eventually(
        async () => {
          const rows = await t.sql(`SELECT status, attempts FROM deliveries WHERE email_id = $1`, [inFlight]);
          return rows[0]?.status === 'delivered' && rows;
        },
        30_000,
        'the outcome written once the database is back, long before the lease ends',
      ).catch(async (err) => {
        throw new Error(`${err.message}: ${JSON.stringify(await t.sql('SELECT * FROM deliveries WHERE email_id = $1', [inFlight]))}`);
      });
      assert.equal(delivery.attempts, 1);
      await eventually(
        async () => t.sink.messages.filter((m) => m.to.includes(forgotten)).length > sentBefore,
        30_000,
        'the forgotten claim delivered long before its lease ends',
      );
      assert.equal(t.sink.messages.filter((m) => m.to.includes('inflight@example.net')).length, 1, 'the interrupted attempt is not made again');
    } finally {
      t.sink.answerDelayMs = 0;
    }
  });
});
