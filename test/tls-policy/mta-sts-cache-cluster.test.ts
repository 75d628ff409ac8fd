// MTA-STS lookups are shared by the cluster (mta-sts-cache.ts): two nodes (two policy caches,
// each with its own DNS resolver and memory, as two processes have) asking for one domain's
// policy many times at once make one TXT lookup and one HTTPS fetch between them per check
// interval, through the shared PostgreSQL row. Real DNS and HTTPS servers on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DnsResolver } from '../../src/dns/resolver.js';
import { createLogger } from '../../src/logger.js';
import { MtaStsPolicies, purgeStaleStsPolicies } from '../../src/tls-policy/mta-sts-cache.js';
import { PolicyHost } from '../support/policy-host.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

const DOMAIN = 'cluster.test';
const CHECK_MS = 1_500;

describe('MTA-STS policies across nodes', () => {
  let t: TestPostline;
  let policyHost: PolicyHost;
  const txtLookups = () => t.dns.queries.filter((q) => q.type === 'TXT' && q.name === `_mta-sts.${DOMAIN}`).length;
  const node = () => new MtaStsPolicies(t.postline.db, new DnsResolver([t.dns.address]), CHECK_MS, createLogger('silent'));

  before(async () => {
    t = await startTestPostline();
    policyHost = await new PolicyHost([DOMAIN]).start();
    policyHost.policy(DOMAIN, { mode: 'enforce', mx: [`mx.${DOMAIN}`], maxAge: 604800 });
    t.dns.set(`mta-sts.${DOMAIN}`, { A: [policyHost.address] });
    t.dns.set(`_mta-sts.${DOMAIN}`, { TXT: ['v=STSv1; id=7'] });
  });
  after(async () => {
    await t?.stop();
    await policyHost?.stop();
  });

  it('looks a domain up once per check interval for the whole cluster', async () => {
    const nodes = [node(), node()];
    const ask = () => Promise.all(nodes.flatMap((n) => Array.from({ length: 50 }, () => n.policyFor(DOMAIN))));
    const first = await ask();
    // The node that claimed the check waited for it; the other may have read the row before the
    // policy was stored (trust on first use): every answer is the policy, or none yet.
    assert.ok(first.every((s) => s.policy === null || s.policy.id === '7'));
    assert.ok(first.some((s) => s.policy?.id === '7'));
    assert.equal(txtLookups(), 1, 'one TXT lookup for 100 asks on two nodes');
    assert.equal(policyHost.fetches.get(DOMAIN), 1, 'one HTTPS fetch');

    // Within the interval, another node asking reads the shared row: no lookup.
    const third = await node().policyFor(DOMAIN);
    assert.equal(third.policy?.id, '7');
    assert.equal(third.policy?.maxAgeS, 604800);
    assert.equal(txtLookups(), 1);

    // After it, one of them looks again; the same id is not fetched again.
    // (A node's own memory lasts no longer than the interval.)
    await new Promise((resolve) => setTimeout(resolve, CHECK_MS + 200));
    await ask();
    assert.equal(txtLookups(), 2, 'one more TXT lookup after the interval');
    assert.equal(policyHost.fetches.get(DOMAIN), 1, 'the id did not change: no fetch');
  });

  it("keeps a domain's row through housekeeping while it is in use", async () => {
    await purgeStaleStsPolicies(t.postline.db);
    assert.equal((await t.sql('SELECT policy_id FROM mta_sts_policies WHERE domain = $1', [DOMAIN]))[0]?.policy_id, '7');
  });
});
