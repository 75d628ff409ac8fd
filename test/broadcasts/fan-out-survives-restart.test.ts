// A broadcast's fan-out lives in the database: Postline restarted half-way through resumes
// after the last committed chunk and nobody gets the broadcast twice; a scheduled broadcast
// that came due while Postline was down goes out when it is back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestPostline } from '../support/postline.js';
import { createContacts, createSegment, eventually, FROM, startBroadcastTest, untilBroadcastMailDone, waitForStatus } from './support.js';

const CONTACTS = 600;
// 600 emails through a restart took over a minute on a 2-core machine running four suites at
// once; the waits allow three.
const SENDING_MS = 180_000;

describe('broadcast fan-out across restarts', () => {
  let t: TestPostline;
  let segmentId: string;
  before(async () => {
    // One contact a chunk, so the fan-out (rows only: the messages are composed at delivery)
    // has many transactions to be stopped in between.
    t = await startBroadcastTest({ POSTLINE_BROADCAST_CHUNK_SIZE: '1' });
    segmentId = await createSegment(t);
    await createContacts(
      t,
      segmentId,
      Array.from({ length: CONTACTS }, (_, i) => ({ email: `reader${i}@example.org` })),
    );
  });
  after(() => t.stop());

  const emailsOf = async (id: string) => (await t.sql('SELECT count(*)::int AS n FROM emails WHERE broadcast_id = $1', [id]))[0].n as number;

  it('restarted half-way, sends every contact exactly one email', async () => {
    const { data, error } = await t.resend.broadcasts.create({ segmentId, from: FROM, subject: 'Once', text: 'Only once, {{{EMAIL}}}', send: true });
    assert.equal(error, null, JSON.stringify(error));
    const id = data!.id;
    const midway = await eventually(
      async () => {
        const n = await emailsOf(id);
        return n >= 1 && n;
      },
      30_000,
      'the fan-out to start',
    );
    await t.restart();
    assert.ok(midway < CONTACTS, `restarted after ${midway} of ${CONTACTS}`);
    const stopped = await emailsOf(id);
    assert.ok(stopped < CONTACTS, `the restart came before the end (${stopped} emails)`);

    await waitForStatus(t, id, 'sent', SENDING_MS);
    await t.sink.waitFor(CONTACTS, SENDING_MS);
    await untilBroadcastMailDone(t, id);
    const received = t.sink.messages.flatMap((m) => m.to);
    assert.equal(received.length, CONTACTS);
    assert.equal(new Set(received).size, CONTACTS, 'nobody got two');
    const rows = await t.sql('SELECT count(*)::int AS n, count(DISTINCT contact_id)::int AS contacts FROM emails WHERE broadcast_id = $1', [id]);
    assert.deepEqual(rows[0], { n: CONTACTS, contacts: CONTACTS });
    const { data: broadcast } = await t.resend.broadcasts.get(id);
    assert.equal(broadcast!.status, 'sent');
    const [{ recipients }] = await t.sql('SELECT recipients FROM broadcasts WHERE id = $1', [id]);
    assert.equal(recipients, CONTACTS);
  });

  it('starts a scheduled broadcast that came due while Postline was down as soon as it is back', async () => {
    const before = t.sink.messages.length;
    const { data, error } = await t.resend.broadcasts.create({
      segmentId,
      from: FROM,
      subject: 'Later',
      text: 'Scheduled',
      send: true,
      scheduledAt: new Date(Date.now() + 1500).toISOString(),
    });
    assert.equal(error, null, JSON.stringify(error));
    assert.equal((await t.resend.broadcasts.get(data!.id)).data!.status, 'queued');
    await t.postline.stop();
    await sleep(2000); // waiting for the clock: it comes due while Postline is down
    await t.restart();
    await waitForStatus(t, data!.id, 'sent', SENDING_MS);
    await t.sink.waitFor(before + CONTACTS, SENDING_MS);
    await untilBroadcastMailDone(t, data!.id);
    assert.equal(t.sink.messages.length, before + CONTACTS);
  });
});
