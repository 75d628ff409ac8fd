// Whatever a crashed node held, not only its deliveries and webhook messages: a contact import
// it was running, a broadcast it was fanning out, an automation step it had claimed. Each is
// put in the hands of a node that then "dies" (its row in `nodes` stops beating) with a lease
// of five minutes; the running Postline presumes it dead after 10 s and takes the work over,
// so each finishes within 30 s instead of when the lease would run out. (test/cli/
// crash-recovery.test.ts kills a real process; here the dead node's claims are made exactly
// as its claim statements make them, so each kind is caught mid-claim every time.)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { createAutomation, runOf, runWhen, setUpSending, stepOf } from '../automations/support.js';
import { createContacts, createSegment, FROM, startBroadcastTest, waitForStatus } from '../broadcasts/support.js';
import { eventually } from '../support/eventually.js';

const FIVE_MINUTES = "now() + interval '5 minutes'";
const WITHIN_MS = 30_000;

describe('the work a dead node had claimed', () => {
  let t: TestPostline;
  const deadNode = crypto.randomUUID();
  before(async () => {
    t = await startBroadcastTest();
    await setUpSending(t);
  });
  after(() => t.stop());

  /** The node as it was before it died: a row whose last beat is `agoSeconds` old. */
  const registerDeadNode = (agoSeconds: number) =>
    t.sql(
      `INSERT INTO nodes (id, host, pid, heartbeat_at) VALUES ($1, 'gone', 1, now() - $2 * interval '1 second') ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
      [deadNode, agoSeconds],
    );

  it('never takes a silent node of its own process for dead (it is running): its claims stay its own', async () => {
    // As after a database outage: the worker thread's node has not beaten for a minute yet.
    const sibling = crypto.randomUUID();
    await t.sql(`INSERT INTO nodes (id, host, pid, heartbeat_at) VALUES ($1, $2, $3, now() - interval '60 seconds')`, [sibling, os.hostname(), process.pid]);
    await registerDeadNode(60);
    await eventually(async () => (await t.sql('SELECT 1 FROM nodes WHERE id = $1', [deadNode])).length === 0, WITHIN_MS, 'the dead node reaped');
    assert.equal((await t.sql('SELECT 1 FROM nodes WHERE id = $1', [sibling])).length, 1, 'the silent node of this process kept');
    await t.sql('DELETE FROM nodes WHERE id = $1', [sibling]);
  });

  it('a contact import it was running finishes within 30 s', async () => {
    const lines = ['email,first_name'];
    for (let i = 0; i < 50_000; i++) lines.push(`imported${i}@example.org,Person ${i}`);
    const created = await t.resend.contacts.imports.create({ file: new Blob([lines.join('\n')], { type: 'text/csv' }) });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const id = created.data!.id;
    // Taken over by the node about to die, as its claim would: a new lease token (the live
    // worker's next batch finds it gone and stops), a five-minute lease, its id.
    await registerDeadNode(0);
    const [taken] = await t.sql(
      `UPDATE contact_imports SET status = 'in_progress', lease_token = gen_random_uuid(), lease_until = ${FIVE_MINUTES}, claimed_by = $2
        WHERE id = $1 AND status IN ('queued', 'in_progress') RETURNING total`,
      [id, deadNode],
    );
    assert.ok(taken && taken.total < 50_000, `taken over before the end (${taken?.total} rows done)`);
    await registerDeadNode(60);
    const diedAt = Date.now();
    await eventually(async () => (await t.resend.contacts.imports.get(id)).data?.status === 'completed', WITHIN_MS, 'the import to complete');
    const imported = await t.sql(`SELECT count(*)::int AS n FROM contacts WHERE email LIKE 'imported%@example.org'`);
    assert.equal(imported[0].n, 50_000);
    assert.ok(Date.now() - diedAt < WITHIN_MS);
  });

  it('a broadcast it was fanning out is sent to everyone, once, within 30 s', async () => {
    const segmentId = await createSegment(t, 'Readers');
    await createContacts(
      t,
      segmentId,
      Array.from({ length: 50 }, (_, i) => ({ email: `reader${i}@example.org` })),
    );
    const { data, error } = await t.resend.broadcasts.create({ segmentId, from: FROM, subject: 'Hello readers', text: 'Hi' });
    assert.equal(error, null, JSON.stringify(error));
    // Claimed by the node about to die, as claimBroadcast does, before any chunk was committed.
    await registerDeadNode(0);
    await t.sql(`UPDATE broadcasts SET status = 'sending', sent_at = now(), lease_until = ${FIVE_MINUTES}, claimed_by = $2 WHERE id = $1`, [
      data!.id,
      deadNode,
    ]);
    await registerDeadNode(60);
    await waitForStatus(t, data!.id, 'sent', WITHIN_MS);
    await eventually(async () => t.sink.messages.filter((m) => m.to[0]!.startsWith('reader')).length >= 50, WITHIN_MS, 'every reader');
    const readers = t.sink.messages.flatMap((m) => m.to).filter((to) => to.startsWith('reader'));
    assert.equal(new Set(readers).size, 50);
    assert.equal(readers.length, 50, 'nobody twice');
  });

  it('an automation step it had claimed is carried out within 30 s', async () => {
    const templateId = (await t.sql(`SELECT id FROM templates WHERE alias = 'welcome'`))[0].id;
    const automationId = await createAutomation(t, {
      name: 'Welcome later',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'signed.up' } },
        { key: 'wait', type: 'delay', config: { duration: '1 hour' } },
        { key: 'welcome', type: 'send_email', config: { template: { id: templateId } } },
      ],
      connections: [
        { from: 'start', to: 'wait' },
        { from: 'wait', to: 'welcome' },
      ],
    });
    const sent = await t.resend.events.send({ event: 'signed.up', email: 'late@example.org' });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const runId = await runOf(t, automationId, 'late@example.org');
    await runWhen(t, automationId, runId, (r) => stepOf(r, 'wait')?.status === 'waiting');
    // The hour is over and the node about to die claimed the step, as claimDueSteps does.
    await registerDeadNode(0);
    const claimed = await t.sql(
      `UPDATE automation_run_steps SET due_at = ${FIVE_MINUTES}, claim_token = gen_random_uuid(), claimed_by = $2
        WHERE run_id = $1 AND key = 'wait' AND status = 'waiting' RETURNING id`,
      [runId, deadNode],
    );
    assert.equal(claimed.length, 1);
    await registerDeadNode(60);
    const done = await runWhen(t, automationId, runId, (r) => r.status === 'completed', WITHIN_MS);
    assert.deepEqual(
      done.steps.map((s) => [s.key, s.status]),
      [
        ['start', 'completed'],
        ['wait', 'completed'],
        ['welcome', 'completed'],
      ],
    );
    await eventually(async () => t.sink.messages.some((m) => m.to.includes('late@example.org')), WITHIN_MS, 'the welcome email');
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM nodes WHERE id = $1`, [deadNode]))[0].n, 0, 'the dead node was reaped');
  });
});
