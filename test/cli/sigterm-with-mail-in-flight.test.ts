// SIGTERM to `postline start` while it is delivering: /readyz answers 503 at once (the API
// still answers, so a load balancer sees it), a new SMTP session is told 421, the attempts in
// flight finish and are recorded as delivered, and the process exits 0 within
// POSTLINE_SHUTDOWN_TIMEOUT. Started again, it sends nothing twice. A real MX host that takes
// three seconds to accept each message keeps the attempts in flight.
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { Resend } from 'resend';
import { SMTPServer } from 'smtp-server';
import { TestDnsServer } from '../support/dns-server.js';
import { createVerifiedDomain } from '../support/domains.js';
import { within } from '../support/eventually.js';
import { baseEnv, newApiKey, PostlineProcess, processStorage, cleanupsAfterSuite } from './postline-process.js';

const EMAILS = 5;
const ACCEPT_AFTER_MS = 3_000;

describe('SIGTERM with mail in flight', () => {
  const cleanups = cleanupsAfterSuite();

  it('turns /readyz 503, refuses new SMTP sessions, finishes the attempts and exits 0 in time', async () => {
    const dns = await new TestDnsServer().start();
    cleanups.push(() => dns.stop());
    const received: string[] = [];
    let inData = 0;
    const slowMx = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        inData++;
        stream.resume();
        stream.on('end', () =>
          setTimeout(() => {
            received.push(...session.envelope.rcptTo.map((r) => r.address));
            callback();
          }, ACCEPT_AFTER_MS),
        );
      },
    });
    slowMx.on('error', () => {});
    await new Promise<void>((resolve) => slowMx.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => slowMx.close(() => resolve())));
    dns.set('slow.test', { MX: [{ exchange: 'mx.slow.test', priority: 10 }] });
    dns.set('mx.slow.test', { A: ['127.0.0.1'] });

    const storage = await processStorage();
    cleanups.push(() => storage.remove());
    const apiKey = newApiKey();
    const env = baseEnv({
      ...storage.env,
      POSTLINE_BOOTSTRAP_API_KEY: apiKey,
      POSTLINE_DNS_SERVERS: dns.address,
      POSTLINE_OUTBOUND_PORT: String((slowMx.server.address() as net.AddressInfo).port),
      POSTLINE_SHUTDOWN_TIMEOUT: '20s',
    });
    const postline = await PostlineProcess.start(env);
    cleanups.push(() => postline.stop('SIGKILL'));
    const smtpPort = Number(postline.lines.map((l) => /SMTP listening on [^:]+:(\d+) \(STARTTLS\)/.exec(l)?.[1]).find(Boolean));
    assert.ok(smtpPort > 0, 'the SMTP port is logged');
    const resend = new Resend(apiKey, { baseUrl: postline.url });
    await createVerifiedDomain({ dns, resend }, 'sender.test');
    const ids: string[] = [];
    for (let i = 0; i < EMAILS; i++) {
      const { data, error } = await resend.emails.send({ from: 'hello@sender.test', to: `r${i}@slow.test`, subject: `In flight ${i}`, text: 'x' });
      assert.equal(error, null, JSON.stringify(error));
      ids.push(data!.id);
    }
    for (let i = 0; inData < EMAILS; i++) {
      assert.ok(i < 300, `only ${inData} of ${EMAILS} messages reached the MX host`);
      await new Promise((r) => setTimeout(r, 20));
    }

    const signalled = Date.now();
    postline.child.kill('SIGTERM');
    const ready = await fetch(`${postline.url}/readyz`);
    assert.equal(ready.status, 503, 'not ready while stopping');
    const body = (await ready.json()) as { statusCode: number; name: string };
    assert.equal(body.statusCode, 503);
    const socket = net.connect(smtpPort, '127.0.0.1');
    const firstReply = new Promise<string>((resolve, reject) => {
      socket.once('data', (chunk) => resolve(chunk.toString()));
      socket.once('error', reject);
    });
    const greeting = await within(firstReply, 10_000, 'the greeting of a new SMTP session while stopping').finally(() => socket.destroy());
    assert.match(greeting, /^421 4\.3\.2 /);
    assert.deepEqual(received, [], 'the attempts are still in flight');

    const exit = await postline.exited;
    const took = Date.now() - signalled;
    assert.deepEqual(exit, { code: 0, signal: null }, postline.lines.slice(-10).join('\n'));
    assert.ok(took >= ACCEPT_AFTER_MS - 500 && took < 20_000, `exited ${took} ms after SIGTERM, once the attempts were done`);
    assert.deepEqual(received.sort(), ids.map((_, i) => `r${i}@slow.test`).sort(), 'every attempt in flight finished');
    assert.ok(postline.lines.some((l) => l.includes('SIGTERM: shutting down')));

    // Recorded as delivered: started again, nothing is sent twice.
    const again = await PostlineProcess.start(env);
    cleanups.push(() => again.stop('SIGKILL'));
    const resendAgain = new Resend(apiKey, { baseUrl: again.url });
    for (const id of ids) assert.equal((await resendAgain.emails.get(id)).data?.last_event, 'delivered');
    await new Promise((r) => setTimeout(r, 1_000)); // a negative check: a repeated attempt would have come by now
    assert.equal(received.length, EMAILS, 'no attempt repeated after the restart');
    assert.equal(inData, EMAILS);
  });
});
