// A node killed with SIGKILL while its delivery attempts and webhook requests hang (its MX host
// accepts connections and never greets; the webhook endpoint never answers): after a restart
// on the same database, every email it acknowledged is delivered, and every webhook sent,
// within 30 s, although the dead process's claims carry five-minute leases. The restarted node
// presumes the silent one dead (cluster/node-presence.ts) and takes its rows.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Resend } from 'resend';
import { startLoopbackMx } from '../support/loopback-mx.js';
import { startSilentHost } from '../support/silent-host.js';
import { createVerifiedDomain } from '../support/domains.js';
import { PostlineProcess, baseEnv, newApiKey, processStorage, cleanupsAfterSuite } from './postline-process.js';
import { closeServer } from '../support/eventually.js';

const EMAILS = 20;

describe('crash recovery: mail a killed node had claimed', () => {
  const cleanups = cleanupsAfterSuite();

  it('is delivered within 30 s of the restart, every acknowledged email once', async () => {
    const { dns, sink } = await startLoopbackMx(cleanups);
    // An MX host that takes the connection and never says a word: the attempts hang.
    const silent = await startSilentHost();
    const { held } = silent;
    cleanups.push(() => silent.stop());
    // A webhook endpoint that holds every request until `answering`, then acknowledges each.
    let answering = false;
    const hooks: { type: string; data: { email_id: string } }[] = [];
    const waitingHooks: http.ServerResponse[] = [];
    const endpoint = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (!answering) return void waitingHooks.push(res);
        hooks.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const res of waitingHooks) res.destroy();
      endpoint.closeAllConnections();
      await closeServer(endpoint);
    });

    const storage = await processStorage();
    cleanups.push(() => storage.remove());
    const apiKey = newApiKey();
    const env = baseEnv({
      ...storage.env,
      POSTLINE_BOOTSTRAP_API_KEY: apiKey,
      POSTLINE_DNS_SERVERS: dns.address,
      POSTLINE_SMTP_HOSTNAME: 'mta.postline.test',
      POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
    });

    const first = await PostlineProcess.start({ ...env, POSTLINE_OUTBOUND_PORT: String(silent.port) });
    cleanups.push(() => first.stop('SIGKILL'));
    const resend = new Resend(apiKey, { baseUrl: first.url });
    await createVerifiedDomain({ dns, resend }, 'crash.test');
    const webhook = await resend.webhooks.create({ endpoint: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/`, events: ['email.sent'] });
    assert.equal(webhook.error, null, JSON.stringify(webhook.error));
    const sent = await resend.batch.send(
      Array.from({ length: EMAILS }, (_, i) => ({ from: 'hello@crash.test', to: `r${i}@dest.test`, subject: `Crash ${i}`, text: 'x' })),
    );
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const ids = sent.data!.data.map((e) => e.id);
    // Claimed and in flight: the silent host has been connected to, the endpoint asked.
    for (let i = 0; held.length === 0 || waitingHooks.length === 0; i++) {
      assert.ok(i < 200, 'no attempt reached the MX host or the endpoint');
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill('SIGKILL');
    await first.exited;

    answering = true;
    const second = await PostlineProcess.start({ ...env, POSTLINE_OUTBOUND_PORT: String(sink.port) });
    cleanups.push(() => second.stop('SIGKILL'));
    const restarted = Date.now();
    await sink.waitFor(EMAILS, 30_000);
    assert.ok(Date.now() - restarted < 30_000);
    const delivered = sink.messages.map((m) => /^Message-ID: <([^@]+)@/im.exec(m.raw.toString('latin1'))?.[1]);
    assert.deepEqual([...delivered].sort(), [...ids].sort(), 'each acknowledged email once');
    while (new Set(hooks.map((h) => h.data.email_id)).size < EMAILS) {
      assert.ok(Date.now() - restarted < 30_000, `${hooks.length} of ${EMAILS} email.sent webhooks within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual([...new Set(hooks.map((h) => h.data.email_id))].sort(), [...ids].sort());
    assert.ok(
      second.lines.some((l) => l.includes('nodes stopped beating')),
      'the restarted node took the dead one’s claims',
    );
  });
});
