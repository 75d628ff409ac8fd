import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type GetUsageResponseSuccess, Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('GET /usage (usage.get): the account usage, from recorded events and its rows', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  it('counts the emails sent today and this month, contacts, segments, broadcasts and domains, and answers the rate limit', async () => {
    for (const to of ['delivered@resend.dev', 'a@example.org', 'b@example.org']) {
      const sent = await t.resend.emails.send({ from: 'hello@acme.test', to, subject: 'Hi', html: '<p>Hi</p>' });
      assert.equal(sent.error, null);
    }
    for (const email of ['one@example.org', 'two@example.org']) assert.equal((await t.resend.contacts.create({ email })).error, null);
    const segment = await t.resend.segments.create({ name: 'Customers' });
    assert.equal(segment.error, null);
    assert.equal(
      (await t.resend.broadcasts.create({ segmentId: segment.data!.id, from: 'hello@acme.test', subject: 'News', html: '<p>News</p>' })).error,
      null,
    );

    const { data, error } = await t.resend.usage.get();
    assert.equal(error, null);
    // The SDK declares the monthly, contacts and automation_runs limits numbers (Resend's plans);
    // Postline has no plan and answers null, as Resend does for the quotas a plan lifts. The
    // objects are compared as copies so the assertions do not narrow `usage` to never.
    const usage: GetUsageResponseSuccess = data!;
    const now = new Date();
    const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    assert.equal(usage.object, 'usage');
    assert.deepEqual({ ...usage.emails.daily }, { used: 3, limit: null, sent: 3, received: 0, resets_at: tomorrow.toISOString() });
    assert.deepEqual({ ...usage.emails.monthly }, { used: 3, limit: null, sent: 3, received: 0, resets_at: nextMonth.toISOString() });
    assert.deepEqual({ ...usage.contacts }, { used: 2, limit: null });
    assert.deepEqual({ ...usage.segments }, { used: 1, limit: null });
    assert.deepEqual({ ...usage.broadcasts }, { used: 1, limit: null });
    assert.deepEqual({ ...usage.domains }, { used: 1, limit: null });
    assert.deepEqual({ ...usage.automation_runs }, { used: 0, limit: null, resets_at: nextMonth.toISOString() });
    assert.deepEqual({ ...usage.ai_credits }, { used: 0, limit: null, next_increase_at: null });
    assert.deepEqual({ ...usage.rate_limit }, { limit: 1000, duration: '1s' });
    // The same figure emails.metrics answers for the month.
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const metrics = await t.resend.emails.metrics({ startDate: monthStart.toISOString(), metrics: ['sent'] });
    assert.equal(metrics.data!.totals.sent, usage.emails.monthly.sent);
  });

  it("counts only the caller's account, and needs a full-access key", async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    const { data } = await new Resend(stranger.token, { baseUrl: t.url }).usage.get();
    assert.equal(data!.emails.monthly.sent, 0);
    assert.equal(data!.contacts.used, 0);
    const key = await t.resend.apiKeys.create({ name: 'sending', permission: 'sending_access' });
    const refused = await rawRequest({ url: t.url, apiKey: key.data!.token }, 'GET', '/usage');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.name, 'restricted_api_key');
  });
});
