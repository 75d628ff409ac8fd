// The corpus of messages that reach a return path (test/inbound/bounce-corpus/): for each, an
// email is sent through the API and delivered to the test MX, the sample is handed to Postline's
// SMTP port as the remote server would send it to that email's return path, and the API must
// show the verdict (GET /emails/:id/reports), the recipient, the event with its bounce subtype
// (GET /emails/:id/events), the email's last_event and the suppression list: a complaint or a
// permanent bounce suppresses the address, a delay warning never does. Auto-replies never
// bounce or complain.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { LOOPBACK_ENDPOINTS, publishMx } from '../webhooks/support.js';
import { AUTO_REPLIES } from './bounce-corpus/auto-replies.js';
import { COMPLAINTS } from './bounce-corpus/complaints.js';
import { DELAYS } from './bounce-corpus/delays.js';
import { PERMANENT_FAILURES } from './bounce-corpus/permanent-failures.js';
import type { Sample } from './bounce-corpus/sample.js';
import { deliverInbound, eventually, startInboundTest } from './support.js';

interface ListOf<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}
interface ReturnPathReport {
  verdict: string;
  format: string;
  reason: string;
  reports: { kind: string; recipient: string | null; status: string | null; bounce: { type: string; subType: string } | null; event: string | null }[];
}
interface EmailEvent {
  type: string;
  data: { to: string[]; bounce?: { type: string; subType: string } };
}

const LAST_EVENT = { 'email.bounced': 'bounced', 'email.delivery_delayed': 'delivery_delayed', 'email.complained': 'complained' } as const;

describe('inbound: every message that reaches a return path is understood (the corpus)', () => {
  let t: TestPostline;

  before(async () => {
    t = await startInboundTest(LOOPBACK_ENDPOINTS);
    await createVerifiedDomain(t, 'sender.test');
    publishMx(t, 'example.net');
  });
  after(async () => {
    await t?.stop();
  });

  async function sendDelivered(sample: Sample): Promise<{ id: string; returnPath: string }> {
    const { data, error } = await t.resend.emails.send({
      from: 'Postline Tests <hello@sender.test>',
      to: sample.to,
      subject: 'Hello',
      html: '<p>Hello there</p>',
    });
    assert.equal(error, null, JSON.stringify(error));
    const id = data!.id;
    await eventually(async () => (await t.resend.emails.get(id)).data?.last_event === 'delivered', 30_000, `${sample.family}: delivered`);
    const returnPath = t.sink.messages.find((m) => m.from.includes(id))!.from;
    return { id, returnPath };
  }

  async function get<T>(path: string): Promise<T> {
    const { data, error } = await t.resend.get<T>(path);
    assert.equal(error, null, JSON.stringify(error));
    return data!;
  }

  const families = [...PERMANENT_FAILURES, ...DELAYS, ...COMPLAINTS, ...AUTO_REPLIES];

  for (const sample of families) {
    it(`${sample.family}: ${sample.expected.verdict}${sample.expected.event ? `, ${sample.expected.event}` : ''}`, async () => {
      const { id, returnPath } = await sendDelivered(sample);
      const [recipient] = sample.to as [string];
      await deliverInbound(t, sample.message(returnPath, recipient), { mailFrom: sample.mailFrom, rcptTo: [returnPath] });

      const reports = await get<ListOf<ReturnPathReport>>(`/emails/${id}/reports`);
      assert.equal(reports.data.length, 1);
      const [report] = reports.data as [ReturnPathReport];
      const { expected } = sample;
      assert.equal(report.verdict, expected.verdict, report.reason);
      assert.equal(report.format, expected.format, report.reason);
      assert.ok(report.reason.length > 0);

      const events = (await get<ListOf<EmailEvent>>(`/emails/${id}/events`)).data;
      const email = (await t.resend.emails.get(id)).data!;

      // A complaint or a permanent bounce suppresses the address; a delay, a transient bounce, an auto-reply never do.
      const suppression = await t.resend.suppressions.get(recipient);
      const origin = expected.event === 'email.complained' ? 'complaint' : expected.bounce?.type === 'Permanent' ? 'bounce' : null;
      if (origin) {
        assert.equal(suppression.data?.origin, origin, JSON.stringify(suppression));
        assert.equal(suppression.data?.source_id, id);
      } else {
        assert.equal(suppression.error?.statusCode, 404, `not suppressed: ${JSON.stringify(suppression.data)}`);
      }

      if (!expected.event) {
        assert.deepEqual(report.reports, []);
        assert.deepEqual(
          events.map((e) => e.type),
          ['email.sent', 'email.delivered'],
        );
        assert.equal(email.last_event, 'delivered');
        return;
      }
      assert.equal(report.reports.length, 1, JSON.stringify(report.reports));
      const [finding] = report.reports as [ReturnPathReport['reports'][number]];
      assert.equal(finding.recipient, recipient);
      assert.equal(finding.event, expected.event);
      if (expected.status) assert.equal(finding.status, expected.status);
      assert.deepEqual(finding.bounce, expected.bounce ?? null);

      const recorded = events.filter((e) => e.type === expected.event);
      assert.equal(recorded.length, 1);
      assert.deepEqual(recorded[0]!.data.to, [recipient]);
      if (expected.bounce) {
        assert.equal(recorded[0]!.data.bounce?.type, expected.bounce.type);
        assert.equal(recorded[0]!.data.bounce?.subType, expected.bounce.subType);
      }
      assert.equal(email.last_event, LAST_EVENT[expected.event]);
    });
  }

  it('a prose bounce about one of two recipients applies to the one it names', async () => {
    const sample = PERMANENT_FAILURES.find((s) => s.family === 'qmail')!;
    const { id, returnPath } = await sendDelivered({ ...sample, to: ['named@example.net', 'fine@example.net'] });
    await deliverInbound(t, sample.message(returnPath, 'named@example.net'), { mailFrom: '', rcptTo: [returnPath] });
    const [report] = (await get<ListOf<ReturnPathReport>>(`/emails/${id}/reports`)).data as [ReturnPathReport];
    assert.deepEqual(
      report.reports.map((r) => [r.recipient, r.event]),
      [['named@example.net', 'email.bounced']],
    );
    const rows = await t.sql(`SELECT recipient, status FROM deliveries WHERE email_id = $1 ORDER BY recipient`, [id]);
    assert.deepEqual(
      rows.map((r) => [r.recipient, r.status]),
      [
        ['fine@example.net', 'delivered'],
        ['named@example.net', 'bounced'],
      ],
    );
  });

  it("answers 404 for another account's email and an unknown id, 422 for a malformed one", async () => {
    const { id } = await sendDelivered(AUTO_REPLIES[0]!);
    const stranger = await createAccount(t.postline.db, 'stranger');
    for (const [emailId, auth] of [
      [id, stranger.token],
      ['00000000-0000-4000-8000-000000000000', t.apiKey],
    ] as const) {
      const res = await rawRequest(t, 'GET', `/emails/${emailId}/reports`, { auth });
      assert.equal(res.status, 404, emailId);
      assert.deepEqual(res.body, { statusCode: 404, message: 'Email not found', name: 'not_found' });
    }
    assert.deepEqual((await rawRequest(t, 'GET', '/emails/not-a-uuid/reports')).body, {
      statusCode: 422,
      message: 'The `id` must be a valid UUID.',
      name: 'validation_error',
    });
  });
});
