// A request killed between claiming its idempotency key and answering: the key was claimed
// (committed) and the work never was. After the restart, the client's retry with the same key
// must be served within seconds, not refused with 409 concurrent_idempotent_requests until
// the claim is two minutes old (as the crash soak, bench/crash-soak.ts, found: 121 s). The
// restarted node presumes the silent one dead and deletes its unanswered claims.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Resend } from 'resend';
import { startLoopbackMx } from '../support/loopback-mx.js';
import { createVerifiedDomain } from '../support/domains.js';
import { closeServer, eventually } from '../support/eventually.js';
import { PostlineProcess, baseEnv, newApiKey, processStorage, cleanupsAfterSuite } from './postline-process.js';

describe('an idempotency key whose request a crash cut off', () => {
  const cleanups = cleanupsAfterSuite();

  it('is served to the retry within 30 s of the restart, one email for the key', async () => {
    const { dns, sink } = await startLoopbackMx(cleanups);
    // The attachment's URL holds every request until `answering`: the first request hangs
    // after its key is claimed, while the accept pipeline loads the attachment.
    let answering = false;
    const held: http.ServerResponse[] = [];
    const files = http.createServer((_req, res) => {
      if (!answering) return void held.push(res);
      res.end('attached');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const res of held) res.destroy();
      files.closeAllConnections();
      await closeServer(files);
    });

    const storage = await processStorage();
    cleanups.push(() => storage.remove());
    const apiKey = newApiKey();
    const env = baseEnv({
      ...storage.env,
      POSTLINE_BOOTSTRAP_API_KEY: apiKey,
      POSTLINE_DNS_SERVERS: dns.address,
      POSTLINE_SMTP_HOSTNAME: 'mta.postline.test',
      POSTLINE_OUTBOUND_PORT: String(sink.port),
      POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE: 'true',
    });
    const first = await PostlineProcess.start(env);
    cleanups.push(() => first.stop('SIGKILL'));
    const resend = new Resend(apiKey, { baseUrl: first.url });
    await createVerifiedDomain({ dns, resend }, 'keys.test');
    const email = {
      from: 'hello@keys.test',
      to: 'buyer@dest.test',
      subject: 'Order 1',
      html: '<p>Thanks</p>',
      attachments: [{ filename: 'invoice.txt', path: `http://127.0.0.1:${(files.address() as AddressInfo).port}/invoice.txt` }],
    };
    const cutOff = resend.emails.send(email, { idempotencyKey: 'order/1' });
    await eventually(async () => held.length > 0, 10_000, 'the first request to fetch its attachment');
    first.child.kill('SIGKILL');
    await first.exited;
    assert.notEqual((await cutOff).error, null, 'the first request got no answer');

    answering = true;
    const second = await PostlineProcess.start({ ...env, PORT: new URL(first.url).port });
    cleanups.push(() => second.stop('SIGKILL'));
    const restarted = Date.now();
    const refusals: string[] = [];
    const id = await eventually(
      async () => {
        const retry = await resend.emails.send(email, { idempotencyKey: 'order/1' });
        if (retry.error) refusals.push(retry.error.name);
        return retry.data?.id;
      },
      30_000,
      'the retry to be served',
    );
    assert.ok(Date.now() - restarted < 30_000);
    assert.ok(
      refusals.every((name) => name === 'concurrent_idempotent_requests' || name === 'application_error'),
      `refused only while the claim stood: ${refusals.join(', ')}`,
    );
    const replay = await resend.emails.send(email, { idempotencyKey: 'order/1' });
    assert.equal(replay.data?.id, id, 'the key now answers with that email');
    await sink.waitFor(1, 15_000);
    const listed = await resend.emails.list();
    assert.equal(listed.data?.data.filter((e) => e.subject === 'Order 1').length, 1, 'one email for the key');
  });
});
