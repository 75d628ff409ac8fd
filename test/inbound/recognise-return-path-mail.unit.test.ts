// The recogniser alone on the corpus (test/inbound/bounce-corpus/), parsed as inbound mail is:
// the verdict, the format, and for each report the recipient named and the precise status.
// bounce-corpus.test.ts sends the same samples through SMTP and reads the outcome through the API.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { recogniseReturnPathMail } from '../../src/inbound/recognise-return-path-mail.js';
import { AUTO_REPLIES } from './bounce-corpus/auto-replies.js';
import { COMPLAINTS } from './bounce-corpus/complaints.js';
import { DELAYS } from './bounce-corpus/delays.js';
import { PERMANENT_FAILURES } from './bounce-corpus/permanent-failures.js';

const RETURN_PATH = 'bounces+0b7f3b9e-4c1a-4f1e-9a57-2d1c3e4f5a6b@send.sender.test';

describe('recognising what reaches a return path', () => {
  for (const sample of [...PERMANENT_FAILURES, ...DELAYS, ...COMPLAINTS, ...AUTO_REPLIES]) {
    it(sample.family, async () => {
      const recipient = sample.to[0]!;
      const email = await PostalMime.parse(sample.message(RETURN_PATH, recipient), { attachmentEncoding: 'arraybuffer' });
      const found = recogniseReturnPathMail(email, sample.mailFrom);
      assert.equal(found.verdict, sample.expected.verdict, found.reason);
      assert.equal(found.format, sample.expected.format, found.reason);
      if (!sample.expected.event) return assert.deepEqual(found.reports, []);
      // Prose may name other addresses too (the sender, a help desk): recording keeps the report naming a recipient.
      const report = found.reports.find((r) => r.recipients.includes(recipient)) ?? found.reports[0];
      if (!report!.guessed) assert.equal(found.reports.length, 1, JSON.stringify(found.reports));
      // A prose bounce naming no address leaves the recipient to the email (its single one).
      if (report!.recipients.length > 0) assert.equal(report!.recipients[0], recipient);
      if (sample.expected.status && report!.kind !== 'complaint') assert.equal(report!.status, sample.expected.status, JSON.stringify(report));
    });
  }

  it("keeps the remote server's reply as the diagnostic, without the report's own words around it", async () => {
    const diagnosticOf = async (family: string) => {
      const sample = PERMANENT_FAILURES.find((s) => s.family === family)!;
      const email = await PostalMime.parse(sample.message(RETURN_PATH, sample.to[0]!), { attachmentEncoding: 'arraybuffer' });
      const report = recogniseReturnPathMail(email, '').reports.find((r) => r.recipients.includes(sample.to[0]!));
      return report?.kind === 'failed' ? report.diagnostic : undefined;
    };
    assert.equal(await diagnosticOf('qmail'), '550 5.1.1 <ghost@example.net>... User unknown');
    assert.equal(await diagnosticOf('exim (no DSN)'), '550 Unrouteable address');
    assert.equal(await diagnosticOf('postfix (DSN off, multipart/mixed)'), '552 5.2.2 <full@example.net>: Mailbox full (in reply to RCPT TO command)');
    assert.equal(
      await diagnosticOf('prose naming the sender and a help desk besides the recipient (Exchange-style, no report part)'),
      '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
    );
    // No SMTP reply quoted: the report's words about the recipient.
    assert.equal(await diagnosticOf('ibm domino'), 'jdoe@example.net because: User jdoe (jdoe@example.net) not listed in Domino Directory');
  });

  it('a message that cannot be parsed is unrecognised, and says so', () => {
    assert.deepEqual(recogniseReturnPathMail(undefined, ''), {
      verdict: 'unrecognised',
      format: 'none',
      reason: 'the message could not be parsed',
      reports: [],
    });
  });
});
