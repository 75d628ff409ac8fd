import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { delivered, receive, startInboxTest } from './support.js';

describe('inboxes: CRUD, labels, drafts and the agent through the SDK', () => {
  let t: TestPostline;
  let inboxId: string;
  let threadId: string;
  let emailId: string;

  before(async () => {
    ({ t, inboxId } = await startInboxTest());
    await receive(t, { from: 'Erin <erin@remote.test>', subject: 'Invoice copy', messageId: '<e1@remote.test>', text: 'Please send the invoice again.' });
    threadId = (await t.resend.inboxes.threads.list({ inboxId })).data!.data[0]!.id;
    emailId = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId })).data!.data[0]!.id;
  });
  after(async () => {
    await t?.stop();
  });

  it('creates, lists, gets by id or address, updates and deletes inboxes', async () => {
    await createVerifiedDomain(t, 'sales.test', { receiving: true });
    const created = await t.resend.inboxes.create({ emailAddress: 'Sales@Sales.test' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const got = await t.resend.inboxes.get('sales@sales.test');
    assert.deepEqual(Object.keys(got.data!).sort(), [
      'created_at',
      'domain_id',
      'drafts',
      'email_address',
      'from_name',
      'id',
      'last_received',
      'name',
      'object',
      'receiving_address',
      'unread',
      'updated_at',
    ]);
    assert.equal(got.data!.name, 'sales@sales.test');
    assert.equal(got.data!.from_name, null);
    assert.equal(got.data!.last_received, null);
    const updated = await t.resend.inboxes.update(created.data!.id, { name: 'Sales', fromName: 'Sales Team' });
    assert.deepEqual(updated.data, { object: 'inbox', id: created.data!.id });
    const list = await t.resend.inboxes.list();
    assert.deepEqual(
      list.data!.data.map((i) => [i.email_address, i.name, i.from_name]),
      [
        ['sales@sales.test', 'Sales', 'Sales Team'],
        ['support@support.test', 'Customer support', 'Support Team'],
      ],
    );
    assert.equal(list.data!.data[1]!.unread, 1);
    const duplicate = await t.resend.inboxes.create({ emailAddress: 'sales@sales.test' });
    assert.equal(duplicate.error?.statusCode, 422);
    const removed = await t.resend.inboxes.remove('sales@sales.test');
    assert.deepEqual(removed.data, { object: 'inbox', id: created.data!.id, deleted: true });
    assert.equal((await t.resend.inboxes.get(created.data!.id)).error?.statusCode, 404);
  });

  it("refuses inboxes off this account's receiving domains and malformed bodies with Resend's error shape", async () => {
    await createVerifiedDomain(t, 'sendonly.test');
    const notReceiving = await t.resend.inboxes.create({ emailAddress: 'a@sendonly.test' });
    assert.equal(notReceiving.error?.statusCode, 422);
    assert.equal((await t.resend.inboxes.create({ emailAddress: 'a@elsewhere.test' })).error?.statusCode, 422);
    const missing = await rawRequest(t, 'POST', '/inboxes', { body: {} });
    assert.deepEqual(missing.body, { statusCode: 422, message: 'Missing `email_address` field.', name: 'missing_required_field' });
    const wrongType = await rawRequest(t, 'POST', '/inboxes', { body: { email_address: 'x@support.test', forwarding: 'yes' } });
    assert.deepEqual(wrongType.body, { statusCode: 422, message: 'The `forwarding` field must be a boolean.', name: 'validation_error' });
    const unknown = await rawRequest(t, 'POST', '/inboxes', { body: { email_address: 'x@support.test', colour: 'red' } });
    assert.deepEqual(unknown.body, { statusCode: 422, message: 'Unknown field `colour`.', name: 'validation_error' });
    const emptyUpdate = await rawRequest(t, 'PATCH', `/inboxes/${inboxId}`, { body: {} });
    assert.equal(emptyUpdate.status, 422);
  });

  it('creates labels, puts them on threads and lists threads by label', async () => {
    const urgent = await t.resend.inboxes.labels.create({ inboxId, name: 'Urgent', color: '#e93d82' });
    const billing = await t.resend.inboxes.labels.create({ inboxId, name: 'Billing' });
    assert.equal(urgent.error, null, JSON.stringify(urgent.error));
    const urgentId = urgent.data!.id;
    const billingId = billing.data!.id;
    const labels = await t.resend.inboxes.labels.list({ inboxId });
    assert.deepEqual(
      labels.data!.data.map((l) => [l.name, l.color]),
      [
        ['Billing', '#6B7280'],
        ['Urgent', '#E93D82'],
      ],
    );
    const added = await t.resend.inboxes.threads.labels.add({ inboxId, threadId, labels: [urgentId] });
    assert.deepEqual(added.data, { object: 'list', data: [{ id: urgentId, name: 'Urgent', color: '#E93D82' }] });
    const set = await t.resend.inboxes.threads.labels.set({ inboxId, threadId, labels: [billingId, urgentId] });
    assert.deepEqual(
      set.data!.data.map((l) => l.name),
      ['Billing', 'Urgent'],
    );
    const byLabel = await t.resend.inboxes.threads.list({ inboxId, labels: [billingId] });
    assert.deepEqual(
      byLabel.data!.data.map((th) => [th.id, th.labels.length]),
      [[threadId, 2]],
    );
    const removed = await t.resend.inboxes.threads.labels.remove({ inboxId, threadId, labelId: urgentId });
    assert.deepEqual(
      removed.data!.data.map((l) => l.name),
      ['Billing'],
    );
    assert.deepEqual((await t.resend.inboxes.labels.update({ inboxId, labelId: billingId, name: 'Accounts', color: '#00AA00' })).data, {
      object: 'inbox_label',
      id: billingId,
    });
    assert.equal((await t.resend.inboxes.threads.get({ inboxId, threadId })).data!.labels[0]!.name, 'Accounts');
    assert.deepEqual((await t.resend.inboxes.labels.remove({ inboxId, labelId: billingId })).data, { object: 'inbox_label', id: billingId, deleted: true });
    assert.deepEqual((await t.resend.inboxes.threads.get({ inboxId, threadId })).data!.labels, []);

    assert.equal((await t.resend.inboxes.labels.create({ inboxId, name: 'Urgent' })).error?.statusCode, 422);
    assert.equal((await t.resend.inboxes.labels.create({ inboxId, name: 'Red', color: 'red' })).error?.statusCode, 422);
    const unknownLabel = await t.resend.inboxes.threads.labels.add({ inboxId, threadId, labels: ['00000000-0000-4000-8000-000000000000'] });
    assert.equal(unknownLabel.error?.statusCode, 422);
    assert.equal((await t.resend.inboxes.threads.labels.add({ inboxId, threadId, labels: [] })).error?.statusCode, 422);
  });

  it('keeps drafts, counts them, and sends a reply draft into its thread', async () => {
    const standalone = await t.resend.inboxes.drafts.create({ inboxId, to: 'frank@remote.test', subject: 'Welcome', text: 'Hello Frank' });
    assert.equal(standalone.error, null, JSON.stringify(standalone.error));
    const reply = await t.resend.inboxes.drafts.create({ inboxId, threadId, replyToEmailId: emailId, to: 'erin@remote.test', html: '<p>Attached again.</p>' });
    assert.equal(reply.error, null, JSON.stringify(reply.error));
    assert.equal((await t.resend.inboxes.get(inboxId)).data!.drafts, 2);
    const listed = await t.resend.inboxes.drafts.list({ inboxId });
    assert.deepEqual(
      listed.data!.data.map((d) => [d.type, d.snippet]),
      [
        ['reply', 'Attached again.'],
        ['standalone', 'Hello Frank'],
      ],
    );
    assert.equal((await t.resend.inboxes.threads.list({ inboxId })).data!.data[0]!.has_draft, true);
    const updated = await t.resend.inboxes.drafts.update({ inboxId, draftId: standalone.data!.id, cc: ['gina@remote.test'], subject: 'Welcome aboard' });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    const got = await t.resend.inboxes.drafts.get({ inboxId, draftId: standalone.data!.id });
    assert.equal(got.data!.subject, 'Welcome aboard');
    assert.deepEqual(got.data!.to, ['frank@remote.test']);
    assert.deepEqual(got.data!.cc, ['gina@remote.test']);
    assert.equal(got.data!.email_id, null);

    const sent = await t.resend.inboxes.drafts.send({ inboxId, draftId: reply.data!.id });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const arrived = await delivered(t, 'erin@remote.test', 'Re: Invoice copy');
    assert.equal(arrived.inReplyTo, '<e1@remote.test>');
    const emails = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId })).data!.data;
    assert.deepEqual(
      emails.map((e) => e.direction),
      ['inbound', 'outbound'],
    );
    assert.equal((await t.resend.inboxes.drafts.get({ inboxId, draftId: reply.data!.id })).data!.email_id, sent.data!.id);
    assert.equal((await t.resend.inboxes.drafts.send({ inboxId, draftId: reply.data!.id })).error?.statusCode, 422);

    // A standalone draft starts a conversation of its own, in the sent folder.
    await t.resend.inboxes.drafts.send({ inboxId, draftId: standalone.data!.id });
    await delivered(t, 'frank@remote.test', 'Welcome aboard');
    const sentThreads = (await t.resend.inboxes.threads.list({ inboxId, folders: ['sent'] })).data!.data;
    assert.deepEqual(
      sentThreads.map((th) => [th.subject, th.read]),
      [['Welcome aboard', true]],
    );
    assert.equal((await t.resend.inboxes.drafts.list({ inboxId })).data!.data.length, 0);

    const third = await t.resend.inboxes.drafts.create({ inboxId, text: 'scratch' });
    assert.deepEqual((await t.resend.inboxes.drafts.remove({ inboxId, draftId: third.data!.id })).data, {
      object: 'inbox_draft',
      id: third.data!.id,
      deleted: true,
    });
    assert.equal(
      (await t.resend.inboxes.drafts.send({ inboxId, draftId: (await t.resend.inboxes.drafts.create({ inboxId, text: 'no one' })).data!.id })).error?.name,
      'missing_required_field',
    );
    assert.equal((await rawRequest(t, 'POST', `/inboxes/${inboxId}/drafts`, { body: {} })).status, 422);
    assert.equal((await rawRequest(t, 'POST', `/inboxes/${inboxId}/drafts`, { body: { to: 42 } })).status, 422);
    assert.equal((await rawRequest(t, 'POST', `/inboxes/${inboxId}/drafts`, { body: { text: 'x', thread_id: threadId } })).status, 422);
  });

  it("stores and returns the agent's settings", async () => {
    assert.deepEqual((await t.resend.inboxes.agent.get({ inboxId })).data, { object: 'inbox_agent', instructions: null, tone: null, actions: [] });
    const updated = await t.resend.inboxes.agent.update({ inboxId, instructions: 'Be kind.', tone: 'concise_casual', actions: ['draft_reply', 'add_labels'] });
    assert.deepEqual(updated.data, { object: 'inbox_agent', id: inboxId });
    assert.deepEqual((await t.resend.inboxes.agent.get({ emailAddress: 'support@support.test' })).data, {
      object: 'inbox_agent',
      instructions: 'Be kind.',
      tone: 'concise_casual',
      actions: ['draft_reply', 'add_labels'],
    });
    await t.resend.inboxes.agent.update({ inboxId, tone: null });
    assert.equal((await t.resend.inboxes.agent.get({ inboxId })).data!.tone, null);
    assert.equal((await t.resend.inboxes.agent.update({ inboxId, tone: 'loud' as 'concise_casual' })).error?.statusCode, 422);
    assert.equal((await t.resend.inboxes.agent.update({ inboxId, actions: ['launch'] as unknown as ['archive'] })).error?.statusCode, 422);
  });

  it("answers 404 for another account's labels, drafts and agent", async () => {
    const other = await createAccount(t.postline.db, 'Other');
    const stranger = new Resend(other.token, { baseUrl: t.url });
    assert.equal((await stranger.inboxes.labels.list({ inboxId })).error?.statusCode, 404);
    assert.equal((await stranger.inboxes.drafts.list({ inboxId })).error?.statusCode, 404);
    assert.equal((await stranger.inboxes.agent.get({ inboxId })).error?.statusCode, 404);
    assert.equal((await stranger.inboxes.remove(inboxId)).error?.statusCode, 404);
    assert.deepEqual((await stranger.inboxes.list()).data!.data, []);
    assert.equal((await t.resend.inboxes.threads.emails.get({ inboxId, threadId, emailId: '00000000-0000-4000-8000-000000000000' })).error?.statusCode, 404);
  });
});
