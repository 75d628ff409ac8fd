// DKIM key rotation (POST /domains/:id/dkim/rotate): a new key waits for its record while mail
// keeps the old signature; once the record is published and verified, mail is signed with the
// new key, the old one retires after its grace time, and no message is ever signed with a
// retired key. Mail is sent the whole time (a stream of emails through the SDK) and every one
// the MX sink receives is checked with mailauth against the test DNS server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DnsResolver } from '../../src/dns/resolver.js';
import { DkimRotation, dkimRotationDeps } from '../../src/domains/dkim-rotation.js';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { publishMx, verifyDkim } from '../delivery/support.js';

const RETIRE_AFTER_S = 4;

describe('DKIM key rotation', () => {
  let t: TestPostline;
  let domainId: string;
  let sending = true;
  let sent = 0;
  let stream: Promise<void>;

  const selectorOf = (raw: Buffer) => /DKIM-Signature:[\s\S]*?\bs=([^;\s]+)/i.exec(raw.toString('latin1'))?.[1];

  before(async () => {
    // The max queue age bounds how long a replaced key must stay retiring: short here.
    t = await startTestPostline({ env: { POSTLINE_DKIM_RETIRE_AFTER: '1s', POSTLINE_MAX_QUEUE_AGE: `${RETIRE_AFTER_S}s` } });
    domainId = (await createVerifiedDomain(t, 'rotating.test')).id;
    publishMx(t, 'inbox.test');
    // Mail all along, one email after another, until the test is done.
    stream = (async () => {
      while (sending) {
        const { error } = await t.resend.emails.send({ from: 'Ops <ops@rotating.test>', to: `n${sent}@inbox.test`, subject: 'Stream', text: 'Signed.' });
        assert.equal(error, null);
        sent++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
  });
  after(async () => {
    sending = false;
    await stream;
    await t?.stop();
  });

  it('creates a pending key under a new selector with its record to publish; asked twice, still one', async () => {
    const first = await rawRequest(t, 'POST', `/domains/${domainId}/dkim/rotate`);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.object, 'dkim_rotation');
    assert.equal(first.body.pending.selector, 'postline2');
    assert.equal(first.body.pending.status, 'pending');
    assert.equal(first.body.pending.record.name, 'postline2._domainkey');
    assert.match(first.body.pending.record.value, /^p=[A-Za-z0-9+/=]{300,}$/);
    const again = await rawRequest(t, 'POST', `/domains/${domainId}/dkim/rotate`);
    assert.deepEqual(again.body.pending, first.body.pending, 'the same pending key');
    assert.deepEqual(
      again.body.keys.map((k: any) => [k.selector, k.status]),
      [
        ['postline2', 'pending'],
        ['postline', 'active'],
      ],
    );
    const { data } = await t.resend.domains.get(domainId);
    assert.equal(data?.status, 'verified', 'the domain stays verified');
    assert.ok(data?.records.some((r: any) => r.name === 'postline2._domainkey' && r.status === 'not_started'));
  });

  it('keeps signing with the current key until the new record is published and verified', async () => {
    const before = sent;
    await eventually(async () => t.sink.messages.length > before + 3, 15_000, 'mail goes on');
    for (const m of t.sink.messages) assert.equal(selectorOf(m.raw), 'postline');
    // Verify before publishing: the record is not found, nothing changes.
    await rawRequest(t, 'POST', `/domains/${domainId}/verify`);
    const detail = await rawRequest(t, 'GET', `/domains/${domainId}`);
    assert.equal(detail.body.dkim_keys[0].record_status, 'failed');
    assert.equal(detail.body.dkim_keys[0].status, 'pending');
  });

  it('switches to the new key once its record verifies, and retires the old one after its time', async () => {
    const detail = await rawRequest(t, 'GET', `/domains/${domainId}`);
    const pending = detail.body.dkim_keys.find((k: any) => k.status === 'pending');
    t.dns.set(`postline2._domainkey.rotating.test`, { TXT: [pending.record.value.replace(/^p=/, 'v=DKIM1; k=rsa; p=')] });
    const verified = await rawRequest(t, 'POST', `/domains/${domainId}/verify`);
    assert.equal(verified.status, 200);
    const switchedAt = Date.now();
    const after = await rawRequest(t, 'GET', `/domains/${domainId}`);
    assert.deepEqual(
      after.body.dkim_keys.map((k: any) => [k.selector, k.status]),
      [
        ['postline2', 'active'],
        ['postline', 'retiring'],
      ],
    );
    const retireAt = Date.parse(after.body.dkim_keys[1].retire_at);
    assert.ok(retireAt - switchedAt >= (RETIRE_AFTER_S - 1) * 1000, 'retiring for at least the max queue age');
    assert.ok(after.body.records.some((r: any) => r.name === 'postline2._domainkey' && r.status === 'verified'));

    // Mail goes on; once the old key's time is over, the worker retires it (checked every minute; here, asked at once).
    await eventually(async () => t.sink.messages.some((m) => selectorOf(m.raw) === 'postline2'), 15_000, 'mail signed with the new key');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, retireAt - Date.now()) + 200));
    await new DkimRotation(dkimRotationDeps(t.postline.db, new DnsResolver([t.dns.address]), t.postline.config)).checkAll();
    const retired = await rawRequest(t, 'GET', `/domains/${domainId}`);
    assert.deepEqual(
      retired.body.dkim_keys.map((k: any) => [k.selector, k.status]),
      [
        ['postline2', 'active'],
        ['postline', 'retired'],
      ],
    );
    const retiredAt = Date.parse(retired.body.dkim_keys[1].retired_at);

    // Every message: DKIM passes, and none received after the old key retired carries its selector.
    sending = false;
    await stream;
    await eventually(async () => t.sink.messages.length >= sent, 15_000, 'every email delivered');
    let onNew = 0;
    for (const m of t.sink.messages) {
      const selector = selectorOf(m.raw);
      if (m.receivedAt.getTime() > retiredAt) assert.equal(selector, 'postline2', 'no message signed with a retired key');
      if (selector === 'postline2') onNew++;
      const dkim = await verifyDkim(t, m.raw);
      assert.ok(
        dkim.some((d) => d.result === 'pass'),
        `${selector}: ${JSON.stringify(dkim)}`,
      );
    }
    assert.ok(onNew >= 2, `${onNew} messages signed with the new key`);
  });

  it("refuses another account's domain and an unknown id alike (404), and a malformed one (422)", async () => {
    const res = await rawRequest(t, 'POST', '/domains/00000000-0000-4000-8000-000000000000/dkim/rotate');
    assert.equal(res.status, 404);
    assert.equal(res.body.name, 'not_found');
    const bad = await rawRequest(t, 'POST', '/domains/not-an-id/dkim/rotate');
    assert.deepEqual(bad.body, { statusCode: 422, message: 'The `id` must be a valid UUID.', name: 'validation_error' });
  });
});

describe('DKIM key rotation of a sandboxed domain', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_SANDBOX: 'true' } });
  });
  after(() => t?.stop());

  const sendAndCatch = async (subject: string) => {
    const { error } = await t.resend.emails.send({ from: 'hello@sandboxed.test', to: 'someone@example.org', subject, text: 'Hi' });
    assert.equal(error, null);
    let caught: any;
    await eventually(
      async () => {
        caught = (await rawRequest(t, 'GET', '/sandbox/messages')).body.data.find((m: any) => m.subject === subject);
        return caught !== undefined;
      },
      15_000,
      `${subject} caught`,
    );
    return caught;
  };

  it('switches at once (nothing to publish), and the catcher verifies mail signed with the new key', async () => {
    assert.equal((await sendAndCatch('before')).dkim, 'pass');
    const { data } = await t.resend.domains.list();
    const id = data!.data.find((d) => d.name === 'sandboxed.test')!.id;
    const rotated = await rawRequest(t, 'POST', `/domains/${id}/dkim/rotate`);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal(rotated.body.pending, null);
    assert.deepEqual(
      rotated.body.keys.map((k: any) => [k.selector, k.status]),
      [
        ['postline2', 'active'],
        ['postline', 'retiring'],
      ],
    );
    const after = await sendAndCatch('after');
    assert.equal(after.dkim, 'pass');
    const raw = await (await fetch(`${t.url}/sandbox/messages/${after.id}/raw`, { headers: { authorization: `Bearer ${t.apiKey}` } })).text();
    assert.match(raw, /DKIM-Signature:[\s\S]*?\bs=postline2;/);
  });
});
