import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

const ROWS = 50_000;

function bigCsv(rows: number, prefix: string): Blob {
  const lines = ['email,first_name,last_name'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${i}@example.com,First ${i},Last ${i}`);
  return new Blob([lines.join('\n')], { type: 'text/csv' });
}

describe('contact imports survive restarts', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  /** The import once `done` says so; a wait that runs out names what was last seen. */
  function waitFor(id: string, done: (status: string, total: number) => boolean, timeoutMs = 60_000) {
    return eventually(
      async () => {
        const got = await t.resend.contacts.imports.get(id);
        assert.equal(got.error, null, JSON.stringify(got.error));
        if (done(got.data!.status, got.data!.counts.total)) return got.data!;
        throw new Error(`still ${got.data!.status} at ${got.data!.counts.total}`);
      },
      timeoutMs,
      `import ${id}`,
    );
  }

  it('resumes an import stopped half-way after its last committed batch: every row once, every event once', async () => {
    const created = await t.resend.contacts.imports.create({ file: bigCsv(ROWS, 'resume-'), onConflict: 'skip' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const id = created.data!.id;
    const halfway = await waitFor(id, (status, total) => status !== 'queued' && total > 0);
    assert.equal(halfway.status, 'in_progress', 'the import is stopped while it runs');
    assert.ok(halfway.counts.total < ROWS);

    await t.restart();
    // Done well within the 2-minute lease: the stopping worker gave the import back, and the
    // next one resumed it at once.
    const done = await waitFor(id, (status) => status === 'completed' || status === 'failed', 60_000);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.counts, { total: ROWS, created: ROWS, updated: 0, skipped: 0, failed: 0 });
    const [contacts] = await t.sql(`SELECT count(*)::int AS n, count(DISTINCT email)::int AS emails FROM contacts WHERE email LIKE 'resume-%'`);
    assert.deepEqual(contacts, { n: ROWS, emails: ROWS });
    const ada = await t.resend.contacts.get({ email: 'resume-49999@example.com' });
    assert.deepEqual([ada.data!.first_name, ada.data!.last_name], ['First 49999', 'Last 49999']);
  });

  it('runs an import queued before a restart after it', async () => {
    // A node runs one import at a time, oldest first: while a big one runs, a small one waits.
    const busy = await t.resend.contacts.imports.create({ file: bigCsv(ROWS, 'busy-'), onConflict: 'skip' });
    await waitFor(busy.data!.id, (status, total) => status === 'in_progress' && total > 0);
    const created = await t.resend.contacts.imports.create({ file: bigCsv(10, 'queued-') });
    assert.equal((await t.resend.contacts.imports.get(created.data!.id)).data!.status, 'queued');

    await t.restart();
    const [{ restarted }] = await t.sql(`SELECT now() AS restarted`);
    const done = await waitFor(created.data!.id, (status) => status === 'completed');
    assert.equal(done.counts.created, 10);
    const [{ started_at }] = await t.sql(`SELECT started_at FROM contact_imports WHERE id = $1`, [created.data!.id]);
    assert.ok(started_at > restarted, `started ${started_at.toISOString()}, before the restart ended ${restarted.toISOString()}`);
  });
});
