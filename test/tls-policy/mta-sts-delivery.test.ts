// A recipient domain's MTA-STS policy (RFC 8461) is kept: Postline looks up `_mta-sts.<domain>`
// through its own resolver, fetches the policy over HTTPS from mta-sts.<domain> (a real HTTPS
// server on 443 with a certificate from the test CA, trusted through NODE_EXTRA_CA_CERTS), keeps
// it in PostgreSQL, and in enforce mode delivers only to the policy's MX hosts over TLS with a
// certificate valid for the host's name. The MX hosts are one real SMTP server on loopback that
// presents, by the name asked for (SNI), a certificate the test CA issued, a self-signed one, or
// one for another name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProviderTable } from '../../src/providers/providers.js';
import { runQueueCommand } from '../../src/queue/cli.js';
import { eventually } from '../support/eventually.js';
import { createVerifiedDomain, publishMx } from '../support/domains.js';
import { MxSink } from '../support/mx-sink.js';
import { PolicyHost } from '../support/policy-host.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { issueCertificate } from '../support/test-ca.js';
import { deliveriesOf, waitForLastEvent } from '../delivery/support.js';

/** Recipient domains, each with one MX host mx.<domain> on the TLS sink. */
const GOOD = 'good.test'; // enforce; its MX host presents a certificate the CA issued for its name
const SELF_SIGNED = 'selfsigned.test'; // enforce; a self-signed certificate
const OTHER_NAME = 'othername.test'; // enforce; a CA-issued certificate for another name
const UNLISTED = 'unlisted.test'; // enforce; the policy lists other MX hosts
const TESTING = 'testing.test'; // testing; a self-signed certificate
const BROKEN = 'broken.test'; // a policy that does not parse
const CHANGING = 'changing.test'; // enforce, then its id and policy change
const DOMAINS = [GOOD, SELF_SIGNED, OTHER_NAME, UNLISTED, TESTING, BROKEN, CHANGING];

describe("a recipient domain's MTA-STS policy", () => {
  let t: TestPostline;
  let sink: MxSink;
  let policyHost: PolicyHost;

  const send = async (to: string) => {
    const { data, error } = await t.resend.emails.send({ from: 'Ops <ops@sender.test>', to, subject: 'Policy', text: 'Kept safe in transit.' });
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };
  const received = (to: string) => sink.messages.filter((m) => m.to.includes(to));
  const txtLookups = (domain: string) => t.dns.queries.filter((q) => q.type === 'TXT' && q.name.toLowerCase() === `_mta-sts.${domain}`).length;

  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_RETRY_DELAYS: '1s', POSTLINE_MTA_STS_CHECK_INTERVAL: '2s' } });
    await createVerifiedDomain(t, 'sender.test');
    const issued = issueCertificate(DOMAINS.filter((d) => d !== SELF_SIGNED && d !== TESTING && d !== OTHER_NAME).map((d) => `mx.${d}`));
    const selfSigned = issueCertificate([`mx.${SELF_SIGNED}`, `mx.${TESTING}`], { selfSigned: true });
    const otherName = issueCertificate(['mx.somewhere-else.test']);
    const byName = Object.fromEntries(DOMAINS.map((d) => [`mx.${d}`, d === SELF_SIGNED || d === TESTING ? selfSigned : d === OTHER_NAME ? otherName : issued]));
    const address = `127.0.${1 + Math.floor(Math.random() * 200)}.${2 + Math.floor(Math.random() * 200)}`;
    sink = await new MxSink(address, { tls: { ...issued, byName } }).start(t.sink.port);
    policyHost = await new PolicyHost(DOMAINS).start();
    for (const domain of DOMAINS) {
      publishMx(t, domain, [{ name: `mx.${domain}`, priority: 10, address }]);
      t.dns.set(`mta-sts.${domain}`, { A: [policyHost.address] });
      t.dns.set(`_mta-sts.${domain}`, { TXT: ['v=STSv1; id=20261128T0001'] });
      policyHost.policy(domain, { mode: 'enforce', mx: [`mx.${domain}`] });
    }
    policyHost.policy(UNLISTED, { mode: 'enforce', mx: ['mx.elsewhere.test', '*.other.test'] });
    policyHost.policy(TESTING, { mode: 'testing', mx: [`mx.${TESTING}`] });
    policyHost.answer(BROKEN, { body: 'version: STSv1\r\nmode: enforce\r\nmx: mx.broken.test\r\n' }); // no max_age
  });
  after(async () => {
    await t?.stop();
    await Promise.all([sink?.stop(), policyHost?.stop()]);
  });

  it('delivers over TLS with a certificate valid for the policy-listed MX host', async () => {
    const id = await send(`someone@${GOOD}`);
    await waitForLastEvent(t, id, 'delivered');
    assert.equal(received(`someone@${GOOD}`)[0]!.secure, true);
    const attempts = await rawRequest(t, 'GET', `/emails/${id}/attempts`);
    assert.equal(attempts.body.data[0].tls.requirement, `verified: the MTA-STS policy of ${GOOD} (enforce, id 20261128T0001)`);
    assert.match(attempts.body.data[0].tls.protocol, /^TLSv1\.[23]$/);
  });

  for (const [domain, why] of [
    [SELF_SIGNED, /requires a certificate valid for mx\.selfsigned\.test: no trusted authority issued the certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)/],
    [OTHER_NAME, /requires a certificate valid for mx\.othername\.test: the certificate is for another name \(ERR_TLS_CERT_ALTNAME_INVALID\)/],
    [
      UNLISTED,
      /mx\.unlisted\.test is not among the MX hosts of the MTA-STS policy of unlisted\.test \(enforce, id 20261128T0001: mx\.elsewhere\.test, \*\.other\.test\)/,
    ],
  ] as const) {
    it(`defers mail it cannot deliver as ${domain}'s enforce policy asks, naming the policy`, async () => {
      const id = await send(`someone@${domain}`);
      await waitForLastEvent(t, id, 'delivery_delayed');
      assert.equal(received(`someone@${domain}`).length, 0, 'nothing was sent');
      const [row] = await deliveriesOf(t, id);
      assert.equal(row.status, 'queued');
      assert.match(row.last_response, /^451 4\.7\.5 /);
      assert.match(row.last_response, why);
      const attempts = await rawRequest(t, 'GET', `/emails/${id}/attempts`);
      assert.match(attempts.body.data[0].response, why);
    });
  }

  it('in testing mode delivers as before and says the policy would have failed', async () => {
    const id = await send(`someone@${TESTING}`);
    await waitForLastEvent(t, id, 'delivered');
    assert.equal(received(`someone@${TESTING}`)[0]!.secure, true);
    const attempts = await rawRequest(t, 'GET', `/emails/${id}/attempts`);
    assert.equal(attempts.body.data[0].tls.requirement, `opportunistic: the MTA-STS policy of ${TESTING} is in testing mode`);
  });

  it('delivers as before when the policy does not parse, and records why', async () => {
    const id = await send(`someone@${BROKEN}`);
    await waitForLastEvent(t, id, 'delivered');
    const view = await rawRequest(t, 'GET', `/queue/destinations/${BROKEN}`);
    assert.equal(view.status, 200);
    assert.equal(view.body.mta_sts[0].policy, null);
    assert.match(view.body.mta_sts[0].last_error, /max_age/);
  });

  it('shows the policy in force in the queue view and in `postline queue list`', async () => {
    const view = await rawRequest(t, 'GET', `/queue/destinations/${SELF_SIGNED}`);
    assert.equal(view.status, 200);
    const [sts] = view.body.mta_sts;
    assert.equal(sts.domain, SELF_SIGNED);
    assert.deepEqual(
      { ...sts.policy, fetched_at: undefined, expires_at: undefined },
      {
        id: '20261128T0001',
        mode: 'enforce',
        mx: [`mx.${SELF_SIGNED}`],
        max_age: 86400,
        fetched_at: undefined,
        expires_at: undefined,
      },
    );
    assert.equal(Date.parse(sts.policy.expires_at) - Date.parse(sts.policy.fetched_at), 86_400_000);
    assert.match(view.body.data[0].last_attempt.reply, /MTA-STS policy of selfsigned\.test/);

    let printed = '';
    await runQueueCommand(t.postline.db, new ProviderTable(t.postline.config.providers), ['list', SELF_SIGNED], (text) => (printed += text));
    assert.match(printed, /MTA-STS\n/);
    assert.match(printed, /selfsigned\.test +enforce \(id 20261128T0001\) mx mx\.selfsigned\.test/);
  });

  it('looks the policy up once per check interval for the whole node, not per message', async () => {
    const lookupsBefore = txtLookups(GOOD);
    const fetchesBefore = policyHost.fetches.get(GOOD) ?? 0;
    const started = Date.now();
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => send(`many${i}@${GOOD}`)));
    for (const id of ids) await waitForLastEvent(t, id, 'delivered');
    const intervals = Math.ceil((Date.now() - started) / 2000) + 1;
    assert.ok(txtLookups(GOOD) - lookupsBefore <= intervals, `${txtLookups(GOOD) - lookupsBefore} TXT lookups in ${intervals} check intervals`);
    assert.equal((policyHost.fetches.get(GOOD) ?? 0) - fetchesBefore, 0, 'the id did not change: the policy is not fetched again');
  });

  it('fetches the policy again when its id changes, and keeps it when the new one cannot be fetched', { timeout: 60_000 }, async () => {
    // Delivered under id 1 first: the domain's policy is known.
    await waitForLastEvent(t, await send(`first@${CHANGING}`), 'delivered');
    // A new id with a policy that lists another host: a check after the interval (2 s) fetches it, and mail waits.
    t.dns.set(`_mta-sts.${CHANGING}`, { TXT: ['v=STSv1; id=2'] });
    policyHost.policy(CHANGING, { mode: 'enforce', mx: ['mx.new-provider.test'] });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const waiting = await send(`someone@${CHANGING}`);
    await waitForLastEvent(t, waiting, 'delivery_delayed');
    assert.equal((await rawRequest(t, 'GET', `/queue/destinations/${CHANGING}`)).body.mta_sts[0].policy.id, '2');
    assert.match((await deliveriesOf(t, waiting))[0].last_response, /not among the MX hosts of the MTA-STS policy of changing\.test \(enforce, id 2/);

    // id 3 cannot be fetched (the host answers 500): policy 2 stays in force, the error is shown
    // (the waiting mail's retries, every second, are what looks again).
    t.dns.set(`_mta-sts.${CHANGING}`, { TXT: ['v=STSv1; id=3'] });
    policyHost.answer(CHANGING, { status: 500, body: 'oops' });
    await eventually(
      async () => /500/.test((await rawRequest(t, 'GET', `/queue/destinations/${CHANGING}`)).body.mta_sts[0]?.last_error ?? ''),
      15_000,
      'the failed refresh recorded',
    );
    const view = await rawRequest(t, 'GET', `/queue/destinations/${CHANGING}`);
    assert.equal(view.body.mta_sts[0].policy.id, '2');

    // id 4 lists the real host again: the waiting mail goes at its next retry.
    t.dns.set(`_mta-sts.${CHANGING}`, { TXT: ['v=STSv1; id=4'] });
    policyHost.policy(CHANGING, { mode: 'enforce', mx: [`mx.${CHANGING}`] });
    await waitForLastEvent(t, waiting, 'delivered', 30_000);
  });
});
