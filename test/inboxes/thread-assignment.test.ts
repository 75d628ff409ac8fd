// Assigning a thread (Postline's `assignee_email` on PATCH, the SDK declaring the webhooks but
// no method): stored, returned, and reported as inbox.thread.assigned / unassigned, signed and
// verified with standardwebhooks by the receiver, once per change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { LOOPBACK_ENDPOINTS, subscribe, WebhookReceiver } from '../webhooks/support.js';
import { receive, startInboxTest } from './support.js';

type ThreadAnswer = { id: string; folder: string; assignee_email: string | null };

describe('inboxes: assigning a thread', () => {
  let t: TestPostline;
  let inboxId: string;
  let threadId: string;
  let receiver: WebhookReceiver;

  const assign = (assignee_email: unknown, client: Resend = t.resend) =>
    client.patch<ThreadAnswer>(`/inboxes/${inboxId}/threads/${threadId}`, { assignee_email });

  before(async () => {
    ({ t, inboxId } = await startInboxTest(LOOPBACK_ENDPOINTS));
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['inbox.thread.assigned', 'inbox.thread.unassigned', 'inbox.thread.folder.updated']);
    await receive(t, { from: 'Ivy <ivy@remote.test>', subject: 'Refund', messageId: '<i1@remote.test>', text: 'Can I get a refund?' });
    threadId = (await t.resend.inboxes.threads.list({ inboxId })).data!.data[0]!.id;
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
  });

  it('stores and returns the assignee, and reports each change exactly once', async () => {
    const first = await assign('Ada@Support.test');
    assert.equal(first.error, null, JSON.stringify(first.error));
    assert.equal(first.data!.assignee_email, 'ada@support.test');
    const got = await t.resend.inboxes.threads.get({ inboxId, threadId });
    assert.equal((got.data as unknown as ThreadAnswer).assignee_email, 'ada@support.test');
    const listed = await t.resend.inboxes.threads.list({ inboxId });
    assert.equal((listed.data!.data[0] as unknown as ThreadAnswer).assignee_email, 'ada@support.test');

    assert.equal((await assign('ada@support.test')).error, null); // unchanged: no event
    assert.equal((await assign('bob@support.test')).error, null);
    const unassigned = await assign(null);
    assert.equal(unassigned.error, null);
    assert.equal(unassigned.data!.assignee_email, null);
    assert.equal((await assign(null)).error, null); // already nobody: no event
    // A change of folder alone leaves the assignee; its event comes after all of the above.
    assert.equal((await assign('cy@support.test')).error, null);
    const moved = await t.resend.inboxes.threads.update({ inboxId, threadId, folder: 'archive' });
    assert.equal((moved.data as unknown as ThreadAnswer).assignee_email, 'cy@support.test');
    await receiver.waitUntil(() => receiver.payloads('inbox.thread.folder.updated').length === 1);

    assert.deepEqual(receiver.rejected, []);
    const base = { source: 'api', inbox_id: inboxId, thread_id: threadId };
    const assigned = receiver.payloads('inbox.thread.assigned').map((p) => p.data);
    assert.deepEqual(
      assigned.sort((a, b) => String(a.assignee_email).localeCompare(String(b.assignee_email))),
      [
        { ...base, assignee_email: 'ada@support.test', assigned_by_email: null, previous_assignee_email: null },
        { ...base, assignee_email: 'bob@support.test', assigned_by_email: null, previous_assignee_email: 'ada@support.test' },
        { ...base, assignee_email: 'cy@support.test', assigned_by_email: null, previous_assignee_email: null },
      ].map((d) => ({ ...d, thread: assigned[0]!.thread })),
    );
    assert.deepEqual(
      receiver.payloads('inbox.thread.unassigned').map((p) => p.data),
      [{ ...base, previous_assignee_email: 'bob@support.test', thread: assigned[0]!.thread }],
    );
    assert.equal(receiver.payloads().length, 5);
  });

  it('refuses a malformed assignee with 422, changing nothing', async () => {
    const before = (await t.resend.inboxes.threads.get({ inboxId, threadId })).data as unknown as ThreadAnswer;
    const patch = (body: object) => rawRequest(t, 'PATCH', `/inboxes/${inboxId}/threads/${threadId}`, { body });
    assert.deepEqual((await patch({ assignee_email: 42 })).body, {
      statusCode: 422,
      message: 'The `assignee_email` field must be an email address or null, not 42.',
      name: 'validation_error',
    });
    assert.deepEqual((await patch({ assignee_email: 'Ada <ada@support.test>' })).body, {
      statusCode: 422,
      message: 'The `assignee_email` field must be a bare email address, without a name.',
      name: 'validation_error',
    });
    const notAnAddress = await patch({ assignee_email: 'ada' });
    assert.equal(notAnAddress.status, 422);
    assert.match(notAnAddress.body.message, /assignee_email/);
    assert.deepEqual((await patch({ assignee: 'ada@support.test' })).body, { statusCode: 422, message: 'Unknown field `assignee`.', name: 'validation_error' });
    const after = (await t.resend.inboxes.threads.get({ inboxId, threadId })).data as unknown as ThreadAnswer;
    assert.equal(after.assignee_email, before.assignee_email);
  });

  it("answers 404 for another account's thread", async () => {
    const other = await createAccount(t.postline.db, 'Other');
    const stranger = new Resend(other.token, { baseUrl: t.url });
    const refused = await assign('eve@support.test', stranger);
    assert.deepEqual(refused.error, { statusCode: 404, message: 'Inbox not found', name: 'not_found' });
    assert.notEqual(((await t.resend.inboxes.threads.get({ inboxId, threadId })).data as unknown as ThreadAnswer).assignee_email, 'eve@support.test');
  });
});
