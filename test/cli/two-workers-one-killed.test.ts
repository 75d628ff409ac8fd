// Two worker nodes on one external PostgreSQL, as an operator scales out: an api node takes
// the mail, worker A claims it and hangs on its MX host, worker B runs beside it. A is killed with SIGKILL and never comes back; B notices A's silence (cluster/node-presence.ts)
// and delivers everything A held within 30 s of the kill, each acknowledged email once.
// Separate processes throughout. Embedded PostgreSQL belongs to one data directory on one
// machine, so this runs on TEST_DATABASE_URL only.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { describe, it } from 'node:test';
import pg from 'pg';
import { Resend } from 'resend';
import { startLoopbackMx } from '../support/loopback-mx.js';
import { startSilentHost } from '../support/silent-host.js';
import { createVerifiedDomain } from '../support/domains.js';
import { testDbMode } from '../support/postline.js';
import { PostlineProcess, baseEnv, externalDatabase, newApiKey, tempDataDir, cleanupsAfterSuite } from './postline-process.js';

const EMAILS = 40;
const external = testDbMode() === 'external';

describe('two worker nodes, one killed', () => {
  const cleanups = cleanupsAfterSuite();

  it('the survivor delivers what the killed node had claimed within 30 s, each email once', {
    skip: external ? false : 'needs TEST_DATABASE_URL: nodes on several machines share an external PostgreSQL',
  }, async () => {
    const { dns, sink } = await startLoopbackMx(cleanups);
    // Worker A's MX host takes connections and never greets: its attempts hang.
    const silent = await startSilentHost();
    cleanups.push(() => silent.stop());

    const database = await externalDatabase();
    cleanups.push(() => database.drop());
    const sql = new pg.Client({ connectionString: database.url });
    const apiKey = newApiKey();
    const node = async (roles: string, outboundPort: number) => {
      const dataDir = await tempDataDir();
      cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
      const env = baseEnv({
        POSTLINE_DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        POSTLINE_BOOTSTRAP_API_KEY: apiKey,
        POSTLINE_DNS_SERVERS: dns.address,
        POSTLINE_SMTP_HOSTNAME: 'mta.postline.test',
        POSTLINE_OUTBOUND_PORT: String(outboundPort),
        POSTLINE_SMTP_PORTS: '',
        POSTLINE_SMTPS_PORTS: '',
      });
      const started = await PostlineProcess.start(env, { args: ['--roles', roles] });
      cleanups.push(() => started.stop('SIGKILL'));
      return started;
    };

    const api = await node('api', sink.port);
    await sql.connect();
    cleanups.push(() => sql.end());
    const resend = new Resend(apiKey, { baseUrl: api.url });
    await createVerifiedDomain({ dns, resend }, 'scale.test');
    const sent = await resend.batch.send(
      Array.from({ length: EMAILS }, (_, i) => ({ from: 'hello@scale.test', to: `r${i}@dest.test`, subject: `Scale ${i}`, text: 'x' })),
    );
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const ids = sent.data!.data.map((e) => e.id);

    // Worker A claims everything and hangs.
    const a = await node('worker', silent.port);
    const claimedByA = async () => (await sql.query(`SELECT count(*)::int AS n FROM deliveries WHERE claimed_by IS NOT NULL`)).rows[0].n as number;
    for (let i = 0; (await claimedByA()) < EMAILS; i++) {
      assert.ok(i < 200, `worker A claimed only ${await claimedByA()} of ${EMAILS}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Worker B comes up beside it: nothing is due for it while A holds every row.
    const b = await node('worker', sink.port);
    assert.equal(sink.messages.length, 0);

    a.child.kill('SIGKILL');
    await a.exited;
    const killed = Date.now();
    await sink.waitFor(EMAILS, 30_000);
    assert.ok(Date.now() - killed < 30_000, `delivered ${Date.now() - killed} ms after the kill`);
    const delivered = sink.messages.map((m) => /^Message-ID: <([^@]+)@/im.exec(m.raw.toString('latin1'))?.[1]);
    assert.deepEqual([...delivered].sort(), [...ids].sort(), 'each acknowledged email once');
    assert.ok(
      b.lines.some((l) => l.includes('nodes stopped beating')),
      'B took the dead node’s claims',
    );
  });
});
