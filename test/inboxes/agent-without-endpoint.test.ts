// Without POSTLINE_AGENT_URL the inbox agent's settings are kept and nothing else happens:
// mail to an inbox whose agent has the `draft_reply` action queues nothing and gets no draft.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { receive, startInboxTest } from './support.js';

describe('inbox agent without a model endpoint', () => {
  let t: TestPostline;
  let inboxId: string;

  before(async () => {
    ({ t, inboxId } = await startInboxTest());
  });
  after(async () => {
    await t?.stop();
  });

  it('keeps the settings and drafts nothing', async () => {
    const settings = { instructions: 'Answer in French.', tone: 'expanded_casual' as const, actions: ['draft_reply' as const, 'add_labels' as const] };
    assert.equal((await t.resend.inboxes.agent.update({ inboxId, ...settings })).error, null);
    await receive(t, { from: 'Gil <gil@remote.test>', subject: 'Bonjour', messageId: '<bonjour@remote.test>', text: 'Une question.' });
    const thread = await eventually(async () => (await t.resend.inboxes.threads.list({ inboxId })).data!.data[0], 15_000, 'the thread');
    assert.equal(thread.subject, 'Bonjour');
    // The job would be queued in the receiving transaction, already committed: none was.
    assert.deepEqual(await t.sql('SELECT id FROM inbox_agent_jobs'), []);
    assert.deepEqual((await t.resend.inboxes.drafts.list({ inboxId })).data!.data, []);
    assert.deepEqual((await t.resend.inboxes.agent.get({ inboxId })).data, { object: 'inbox_agent', ...settings });
  });
});
