import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { INBOX_EVENTS, LOOPBACK_ENDPOINTS, subscribe, WebhookReceiver } from '../webhooks/support.js';
import { receive, startInboxTest } from './support.js';

describe('inboxes: inbox.* webhooks from the one event writer', () => {
  let t: TestPostline;
  let inboxId: string;
  let receiver: WebhookReceiver;

  before(async () => {
    ({ t, inboxId } = await startInboxTest(LOOPBACK_ENDPOINTS));
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, INBOX_EVENTS);
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
  });

  it('reports mail received, threads started and moved, labels, replies and drafts', async () => {
    await receive(t, { from: 'Hana <hana@remote.test>', subject: 'Broken link', messageId: '<h1@remote.test>', text: 'The link is broken.' });
    const thread = (await t.resend.inboxes.threads.list({ inboxId })).data!.data[0]!;
    const message = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data[0]!;
    const label = await t.resend.inboxes.labels.create({ inboxId, name: 'Bug', color: '#FF0000' });
    await t.resend.inboxes.threads.labels.add({ inboxId, threadId: thread.id, labels: [label.data!.id] });
    await t.resend.inboxes.threads.update({ inboxId, threadId: thread.id, folder: 'archive' });
    // Assignment is Postline's assignee_email (no SDK method); thread-assignment.test.ts checks its payloads.
    for (const assignee_email of ['ada@support.test', null]) {
      const { error } = await t.resend.patch(`/inboxes/${inboxId}/threads/${thread.id}`, { assignee_email });
      assert.equal(error, null, JSON.stringify(error));
    }
    const draft = await t.resend.inboxes.drafts.create({ inboxId, threadId: thread.id, replyToEmailId: message.id, to: 'hana@remote.test' });
    await t.resend.inboxes.drafts.update({ inboxId, draftId: draft.data!.id, text: 'Fixed, thanks!' });
    await t.resend.inboxes.drafts.send({ inboxId, draftId: draft.data!.id });
    const scratch = await t.resend.inboxes.drafts.create({ inboxId, text: 'scratch' });
    await t.resend.inboxes.drafts.remove({ inboxId, draftId: scratch.data!.id });
    await t.resend.inboxes.update(inboxId, { fromName: 'Helpdesk' });

    await receiver.waitUntil(() => receiver.payloads().length >= 13);
    assert.deepEqual(receiver.rejected, []);
    // The ids, without the embedded objects (checked below).
    const byType = (type: string) => receiver.payloads(type).map(({ data: { inbox, thread, email, draft, ...ids } }) => ids);
    const embedded = (type: string, field: string) => receiver.payloads(type).map((p) => p.data[field]);
    assert.deepEqual(byType('inbox.thread.created'), [{ source: 'system', inbox_id: inboxId, thread_id: thread.id, email_id: message.id }]);
    assert.deepEqual(byType('inbox.email.received'), [{ source: 'system', inbox_id: inboxId, thread_id: thread.id, email_id: message.id }]);
    assert.deepEqual(byType('inbox.thread.labels.updated'), [
      { source: 'api', inbox_id: inboxId, thread_id: thread.id, added: [{ id: label.data!.id, name: 'Bug', color: '#FF0000' }], removed: [] },
    ]);
    assert.deepEqual(byType('inbox.thread.folder.updated'), [{ source: 'api', inbox_id: inboxId, thread_id: thread.id, from: 'inbox', to: 'archive' }]);
    const draftData = { source: 'api', inbox_id: inboxId, draft_id: draft.data!.id, thread_id: thread.id };
    assert.deepEqual(byType('inbox.draft.created'), [draftData, { source: 'api', inbox_id: inboxId, draft_id: scratch.data!.id }]);
    assert.deepEqual(byType('inbox.draft.updated'), [draftData]);
    assert.deepEqual(byType('inbox.draft.deleted'), [{ source: 'api', inbox_id: inboxId, draft_id: scratch.data!.id }]);
    const sentMessage = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data[1]!;
    const sent = { source: 'api', inbox_id: inboxId, thread_id: thread.id, email_id: sentMessage.id };
    assert.deepEqual(byType('inbox.email.sent'), [sent]);
    assert.deepEqual(byType('inbox.draft.sent'), [{ ...sent, draft_id: draft.data!.id }]);
    assert.deepEqual(byType('inbox.updated'), [{ source: 'api', inbox_id: inboxId }]);
    assert.equal(receiver.payloads('inbox.thread.assigned').length, 1);
    assert.equal(receiver.payloads('inbox.thread.unassigned').length, 1);

    // Embedded: each object as the API shows it at that moment, bodies left out.
    const { html: _h, text: _t, ...receivedEmail } = message;
    assert.deepEqual(embedded('inbox.thread.created', 'email'), [receivedEmail]);
    assert.deepEqual(embedded('inbox.email.received', 'email'), [receivedEmail]);
    const summary = { object: 'inbox_thread', id: thread.id, subject: 'Broken link', folder: 'inbox', read: false };
    assert.deepEqual(embedded('inbox.thread.created', 'thread'), [{ ...summary, labels: [] }]);
    const bug = { id: label.data!.id, name: 'Bug', color: '#FF0000' };
    assert.deepEqual(embedded('inbox.thread.labels.updated', 'thread'), [{ ...summary, labels: [bug] }]);
    assert.deepEqual(embedded('inbox.thread.folder.updated', 'thread'), [{ ...summary, labels: [bug], folder: 'archive' }]);
    const { html: _sh, text: _st, ...sentEmail } = sentMessage;
    assert.deepEqual(embedded('inbox.email.sent', 'email'), [sentEmail]);
    assert.deepEqual(embedded('inbox.draft.sent', 'email'), [sentEmail]);
    const [sentDraft] = embedded('inbox.draft.sent', 'draft');
    const { html: _dh, text: _dt, ...storedDraft } = (await t.resend.inboxes.drafts.get({ inboxId, draftId: draft.data!.id })).data!;
    assert.deepEqual(sentDraft, storedDraft);
    assert.match(storedDraft.email_id ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      embedded('inbox.draft.updated', 'draft').map((d) => [d.id, d.type, d.email_id]),
      [[draft.data!.id, 'reply', null]],
    );
    assert.deepEqual(
      embedded('inbox.draft.deleted', 'draft').map((d) => [d.id, d.type, d.attachments]),
      [[scratch.data!.id, 'standalone', []]],
    );
    assert.deepEqual(embedded('inbox.draft.deleted', 'thread'), [undefined]);
    const { data: inboxNow } = await t.resend.inboxes.get(inboxId);
    const [updatedInbox] = embedded('inbox.updated', 'inbox');
    assert.equal(updatedInbox.from_name, 'Helpdesk');
    assert.deepEqual({ ...updatedInbox, updated_at: inboxNow!.updated_at, unread: inboxNow!.unread, drafts: inboxNow!.drafts }, inboxNow);
    assert.ok(receiver.payloads().every((p) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(p.created_at)));
  });

  it('reports inboxes created and deleted', async () => {
    const created = await t.resend.inboxes.create({ emailAddress: 'billing@support.test' });
    await t.resend.inboxes.remove(created.data!.id);
    await receiver.waitUntil(() => receiver.payloads('inbox.deleted').length === 1);
    const [createdEvent] = receiver.payloads('inbox.created').map((p) => p.data);
    assert.equal(createdEvent.source, 'api');
    assert.equal(createdEvent.inbox_id, created.data!.id);
    assert.equal(createdEvent.inbox.object, 'inbox');
    assert.equal(createdEvent.inbox.id, created.data!.id);
    assert.equal(createdEvent.inbox.email_address, 'billing@support.test');
    assert.equal(createdEvent.inbox.unread, 0);
    // The SDK's inbox.deleted embeds nothing (InboxBaseEventData).
    assert.deepEqual(
      receiver.payloads('inbox.deleted').map((p) => p.data),
      [{ source: 'api', inbox_id: created.data!.id }],
    );
  });

  it('has sent every inbox.* kind of the event catalogue', () => {
    assert.deepEqual(
      INBOX_EVENTS.filter((type) => receiver.payloads(type).length === 0),
      [],
    );
  });
});
