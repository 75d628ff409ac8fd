// A sending domain's `tls: "enforced"` (Resend's setting: never deliver without TLS) is kept:
// mail to an MX host that offers no STARTTLS is deferred with a reason that says so (the
// attempt log, the email's events, the queue view), never sent in plain text, and fails when
// its retries run out; mail to a host that offers STARTTLS goes over TLS, any certificate
// accepted. A domain changed back to `opportunistic` releases its queued mail. Real SMTP
// servers on loopback: the test's default sink (no STARTTLS) and one with a certificate.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { MxSink } from '../support/mx-sink.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { issueCertificate } from '../support/test-ca.js';
import { deliveriesOf, eventsOf, publishMx, waitForLastEvent } from '../delivery/support.js';

const MAX_QUEUE_AGE_S = 15;

describe("a sending domain's tls: enforced", () => {
  let t: TestPostline;
  let tlsSink: MxSink;
  let enforced: { id: string; name: string };

  const sendFrom = async (domain: string, to: string) => {
    const { data, error } = await t.resend.emails.send({ from: `Ops <ops@${domain}>`, to, subject: 'Transit', text: 'Over TLS, or not at all.' });
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };

  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_RETRY_DELAYS: '1s', POSTLINE_MAX_QUEUE_AGE: `${MAX_QUEUE_AGE_S}s` } });
    await createVerifiedDomain(t, 'relaxed.test');
    enforced = await createVerifiedDomain(t, 'strict-sender.test');
    const updated = await t.resend.domains.update({ id: enforced.id, tls: 'enforced' });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    // The default sink offers no STARTTLS; this one does, with a certificate no CA issued.
    const address = `127.0.${1 + Math.floor(Math.random() * 200)}.${2 + Math.floor(Math.random() * 200)}`;
    tlsSink = await new MxSink(address, { tls: issueCertificate(['mx.secure.test'], { selfSigned: true }) }).start(t.sink.port);
    publishMx(t, 'plain.test');
    publishMx(t, 'secure.test', [{ name: 'mx.secure.test', priority: 10, address }]);
  });
  after(async () => {
    await t?.stop();
    await tlsSink?.stop();
  });

  it('defers mail for a host without STARTTLS, saying why, and sends none of it in plain text', async () => {
    const id = await sendFrom(enforced.name, 'someone@plain.test');
    await waitForLastEvent(t, id, 'delivery_delayed');
    assert.equal(t.sink.messages.length, 0, 'nothing reached the host in plain text');

    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'queued');
    assert.match(row.last_response, /^451 4\.7\.5 .*TLS is required \(the sending domain's tls: enforced\) but mx\.plain\.test did not encrypt the session/);

    const attempts = await rawRequest(t, 'GET', `/emails/${id}/attempts`);
    assert.equal(attempts.status, 200);
    assert.equal(attempts.body.data[0].outcome, 'deferred');
    assert.equal(attempts.body.data[0].code, 451);
    assert.match(attempts.body.data[0].response, /tls: enforced/);
    assert.equal(attempts.body.data[0].tls, null, 'no session carried the message');

    const delayed = (await eventsOf(t, id)).find((e) => e.type === 'email.delivery_delayed');
    assert.match(delayed?.data.delay.response, /tls: enforced/);

    const queue = await rawRequest(t, 'GET', '/queue/destinations/plain.test');
    assert.equal(queue.status, 200);
    assert.match(queue.body.data[0].last_attempt.reply, /TLS is required/);

    // Back to opportunistic: the mail already queued goes at its next retry, in plain text.
    const relaxed = await t.resend.domains.update({ id: enforced.id, tls: 'opportunistic' });
    assert.equal(relaxed.error, null, JSON.stringify(relaxed.error));
    await waitForLastEvent(t, id, 'delivered');
    assert.equal(t.sink.messages.at(-1)!.secure, false);
    const updated = await t.resend.domains.update({ id: enforced.id, tls: 'enforced' });
    assert.equal(updated.error, null);
  });

  it('delivers over TLS to a host that offers STARTTLS, whatever its certificate', async () => {
    const id = await sendFrom(enforced.name, 'someone@secure.test');
    await waitForLastEvent(t, id, 'delivered');
    const received = tlsSink.messages.at(-1)!;
    assert.equal(received.secure, true);
    const attempts = await rawRequest(t, 'GET', `/emails/${id}/attempts`);
    assert.deepEqual(attempts.body.data[0].tls, { protocol: received.tlsProtocol, requirement: "encrypted: the sending domain's tls: enforced" });
  });

  it("keeps an opportunistic domain's mail as before: plain text to a host without STARTTLS", async () => {
    const id = await sendFrom('relaxed.test', 'other@plain.test');
    await waitForLastEvent(t, id, 'delivered');
    assert.equal(t.sink.messages.at(-1)!.secure, false);
    const attempts = await rawRequest(t, 'GET', `/emails/${id}/attempts`);
    assert.deepEqual(attempts.body.data[0].tls, { protocol: null, requirement: 'opportunistic' });
  });

  it('fails the email when its retries run out, with the reason', { timeout: 60_000 }, async () => {
    const id = await sendFrom(enforced.name, 'late@plain.test');
    await waitForLastEvent(t, id, 'failed', (MAX_QUEUE_AGE_S + 20) * 1000);
    const failed = (await eventsOf(t, id)).at(-1)!;
    assert.equal(failed.type, 'email.failed');
    assert.equal(failed.data.failed.reason, 'max_queue_age_exceeded');
    assert.match(failed.data.failed.response, /TLS is required \(the sending domain's tls: enforced\)/);
    assert.ok(!t.sink.messages.some((m) => m.to.includes('late@plain.test')), 'never sent in plain text');
  });

  it("refuses a tls value other than the two, 422, as Resend's API does", async () => {
    const res = await rawRequest(t, 'PATCH', `/domains/${enforced.id}`, { body: { tls: 'required' } });
    assert.equal(res.status, 422);
    assert.equal(res.body.name, 'validation_error');
  });
});
