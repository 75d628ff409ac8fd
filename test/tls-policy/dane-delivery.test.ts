// DANE for SMTP (RFC 7672), end to end: Postline resolves through a real validating resolver
// (unbound on loopback, test/support/unbound.ts) serving signed and unsigned test zones, and
// delivers to a real SMTP server on loopback that offers STARTTLS and presents, by the name asked
// for (SNI), a self-signed certificate or one the test CA issued. Secure TLSA records at
// `_25._tcp.<mx host>` decide: a DANE-EE or DANE-TA match delivers, a mismatch or records that
// cannot be read securely (bogus) defer with 4.7.5 and send nothing, records none of which is
// usable still require TLS, and an unsigned zone's records are not DANE at all.
//
// The sending domain is verified first against the test's own DNS server (t.dns, where
// createVerifiedDomain publishes its records); Postline is then restarted, on the same
// database, resolving through unbound.
import assert from 'node:assert/strict';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { MxSink } from '../support/mx-sink.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { issueCertificate, TEST_CA_CERT } from '../support/test-ca.js';
import { startValidatingResolver, type ValidatingResolver } from '../support/unbound.js';
import { deliveriesOf, waitForLastEvent } from '../delivery/support.js';

/** Recipient domains, each its own zone with one MX host mx.<domain>. */
const EE = 'dane-ee.test'; // signed; DANE-EE 3 1 1 of the host's self-signed certificate's key
const TA = 'dane-ta.test'; // signed; DANE-TA 2 0 1 of the test CA; the host presents a certificate it issued
const MISMATCH = 'dane-mismatch.test'; // signed; a DANE-EE record that matches nothing
const BOGUS = 'dane-bogus.test'; // signed; its TLSA record altered after signing (to one that would match)
const UNSIGNED = 'unsigned.test'; // unsigned; a TLSA record that would not match
const UNUSABLE = 'dane-unusable.test'; // signed; TLSA records of kinds SMTP cannot use (PKIX-EE, usage 9)
const PLAIN = 'dane-plain.test'; // signed; unusable TLSA records, and the host (t.sink) offers no STARTTLS

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const keyOf = (pem: string) => new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
const randomHash = () => randomBytes(32).toString('hex');

/** A signed zone: the domain's MX, its host's address, and the host's TLSA records. */
function zone(domain: string, address: string, tlsa: string[], options: { signed?: boolean; tamperedTlsa?: string[] } = {}) {
  const base = `_25._tcp.mx.${domain}.`;
  return {
    name: domain,
    signed: options.signed ?? true,
    records: [`${domain}. 300 IN MX 10 mx.${domain}.`, `mx.${domain}. 300 IN A ${address}`, ...tlsa.map((r) => `${base} 300 IN TLSA ${r}`)],
    ...(options.tamperedTlsa ? { tamperedAfterSigning: options.tamperedTlsa.map((r) => `${base} 300 IN TLSA ${r}`) } : {}),
  };
}

describe('DANE (RFC 7672) for delivery through a validating resolver', () => {
  let t: TestPostline;
  let unbound: ValidatingResolver;
  let tlsSink: MxSink;
  /** What the mismatch case's record and its host's key hash to, for the reason it gives. */
  let mismatch: { record: string; presented: string };

  const send = async (to: string) => {
    const { data, error } = await t.resend.emails.send({ from: 'Ops <ops@sender.test>', to, subject: 'DANE', text: 'Authenticated by DNSSEC.' });
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };
  const receivedBy = (sink: MxSink, to: string) => sink.messages.filter((m) => m.to.includes(to));
  const attemptsOf = async (id: string) => {
    const res = await rawRequest(t, 'GET', `/emails/${id}/attempts`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data as { outcome: string; code: number; response: string; tls: { protocol: string | null; requirement: string } | null }[];
  };
  /** Deferred, nothing sent, the reason in the delivery row and the attempt log. */
  const assertDeferred = async (id: string, to: string, why: RegExp) => {
    await waitForLastEvent(t, id, 'delivery_delayed');
    assert.equal(receivedBy(tlsSink, to).length + receivedBy(t.sink, to).length, 0, 'nothing was sent');
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'queued');
    assert.match(row.last_response, /^451 4\.7\.5 /);
    assert.match(row.last_response, why);
    const [attempt] = await attemptsOf(id);
    assert.equal(attempt!.outcome, 'deferred');
    assert.equal(attempt!.code, 451);
    assert.match(attempt!.response, /^451 4\.7\.5 /);
    assert.match(attempt!.response, why);
    assert.equal(attempt!.tls, null, 'no session carried the message');
  };

  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_RETRY_DELAYS: '1s' } });
    await createVerifiedDomain(t, 'sender.test');

    const selfSigned = Object.fromEntries(
      [EE, MISMATCH, BOGUS, UNSIGNED, UNUSABLE].map((d) => [`mx.${d}`, issueCertificate([`mx.${d}`], { selfSigned: true })]),
    );
    const issued = issueCertificate([`mx.${TA}`]);
    // DANE-TA needs the CA's certificate in what the server sends (RFC 7672 §3.1.2): the chain.
    const byName = { ...selfSigned, [`mx.${TA}`]: { key: issued.key, cert: issued.chain } };
    const address = `127.0.${1 + Math.floor(Math.random() * 200)}.${2 + Math.floor(Math.random() * 200)}`;
    tlsSink = await new MxSink(address, { tls: { ...selfSigned[`mx.${EE}`]!, byName } }).start(t.sink.port);

    const caDer = new X509Certificate(fs.readFileSync(TEST_CA_CERT)).raw;
    const unmatched = randomHash();
    mismatch = { record: unmatched, presented: sha256(keyOf(selfSigned[`mx.${MISMATCH}`]!.cert)) };
    unbound = await startValidatingResolver({
      zones: [
        zone(EE, address, [`3 1 1 ${sha256(keyOf(selfSigned[`mx.${EE}`]!.cert))}`]),
        zone(TA, address, [`2 0 1 ${sha256(caDer)}`]),
        zone(MISMATCH, address, [`3 1 1 ${unmatched}`]),
        zone(BOGUS, address, [`3 1 1 ${randomHash()}`], { tamperedTlsa: [`3 1 1 ${sha256(keyOf(selfSigned[`mx.${BOGUS}`]!.cert))}`] }),
        zone(UNSIGNED, address, [`3 1 1 ${randomHash()}`], { signed: false }),
        zone(UNUSABLE, address, [`1 1 1 ${sha256(keyOf(selfSigned[`mx.${UNUSABLE}`]!.cert))}`, `9 1 1 ${randomHash()}`]),
        zone(PLAIN, '127.0.0.1', [`1 1 1 ${randomHash()}`, `9 1 1 ${randomHash()}`]),
      ],
    });
    // Same database, same API port: only the resolver changes (restart merges the env).
    await t.restart({ POSTLINE_DNS_SERVERS: unbound.address });
  });
  after(async () => {
    await t?.stop();
    await Promise.all([tlsSink?.stop(), unbound?.stop()]);
  });

  it('delivers over TLS to a host whose self-signed certificate matches its DANE-EE 3 1 1 record', async () => {
    const to = `someone@${EE}`;
    const id = await send(to);
    await waitForLastEvent(t, id, 'delivered');
    const [received] = receivedBy(tlsSink, to);
    assert.equal(received?.secure, true);
    const [attempt] = await attemptsOf(id);
    assert.equal(attempt!.outcome, 'delivered');
    assert.equal(attempt!.tls?.protocol, received.tlsProtocol);
    assert.ok(attempt!.tls?.requirement.startsWith(`dane: DANE (TLSA of _25._tcp.mx.${EE})`), attempt!.tls?.requirement);
  });

  it('delivers to a host with a certificate the CA of its DANE-TA 2 0 1 record issued for its name', async () => {
    const to = `someone@${TA}`;
    const id = await send(to);
    await waitForLastEvent(t, id, 'delivered');
    assert.equal(receivedBy(tlsSink, to)[0]?.secure, true);
    const [attempt] = await attemptsOf(id);
    assert.ok(attempt!.tls?.requirement.startsWith(`dane: DANE (TLSA of _25._tcp.mx.${TA})`), attempt!.tls?.requirement);
  });

  it('defers, sending nothing, when no TLSA record matches the certificate, naming the mismatch', async () => {
    const to = `someone@${MISMATCH}`;
    const id = await send(to);
    const record = mismatch.record.slice(0, 16);
    const presented = mismatch.presented.slice(0, 16);
    await assertDeferred(
      id,
      to,
      new RegExp(
        `No host met the TLS requirement: .*DANE \\(TLSA of _25\\._tcp\\.mx\\.dane-mismatch\\.test\\): ` +
          `no TLSA record of mx\\.dane-mismatch\\.test matches the certificate it presented: ` +
          `DANE-EE 3 1 1 ${record}\\.\\.\\. \\(its key's SHA-256 is ${presented}\\.\\.\\.\\)`,
      ),
    );
  });

  it('defers, sending nothing, when the TLSA records are bogus, even though the altered record would match', async () => {
    const to = `someone@${BOGUS}`;
    const id = await send(to);
    await assertDeferred(
      id,
      to,
      /^451 4\.7\.5 mx\.dane-bogus\.test: its addresses or TLSA records could not be read securely \(TLSA _25\._tcp\.mx\.dane-bogus\.test: SERVFAIL\); DANE forbids using it until they can/,
    );
  });

  it('ignores TLSA records of an unsigned zone: delivered as before, opportunistic', async () => {
    const to = `someone@${UNSIGNED}`;
    const id = await send(to);
    await waitForLastEvent(t, id, 'delivered');
    const [received] = receivedBy(tlsSink, to);
    assert.equal(received?.secure, true, 'STARTTLS is still used when offered');
    const [attempt] = await attemptsOf(id);
    assert.deepEqual(attempt!.tls, { protocol: received.tlsProtocol, requirement: 'opportunistic' });
  });

  it('requires TLS, without authentication, when no TLSA record is of a usable kind', async () => {
    const to = `someone@${UNUSABLE}`;
    const id = await send(to);
    await waitForLastEvent(t, id, 'delivered');
    const [received] = receivedBy(tlsSink, to);
    assert.equal(received?.secure, true);
    const [attempt] = await attemptsOf(id);
    assert.ok(attempt!.tls?.requirement.startsWith(`encrypted: DANE (TLSA of _25._tcp.mx.${UNUSABLE}, none usable`), attempt!.tls?.requirement);
    assert.equal(attempt!.tls?.protocol, received.tlsProtocol);
  });

  it('defers, sending nothing in plain text, when such a host offers no STARTTLS', async () => {
    const to = `someone@${PLAIN}`;
    const id = await send(to);
    await assertDeferred(
      id,
      to,
      /No host met the TLS requirement: .*TLS is required \(DANE \(TLSA of _25\._tcp\.mx\.dane-plain\.test, none usable[^)]*\)\) but mx\.dane-plain\.test did not encrypt the session/,
    );
  });
});
