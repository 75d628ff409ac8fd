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
import { mail } from './bounce-corpus/sample.js';

const RETURN_PATH = 'bounces+0b7f3b9e-4c1a-4f1e-9a57-2d1c3e4f5a6b@send.sender.test';

/** A message as inbound mail recognises it: parsed by postal-mime, with its raw bytes. */
async function recognise(message: string, mailFrom: string) {
  const email = await PostalMime.parse(message, { attachmentEncoding: 'arraybuffer' });
  return recogniseReturnPathMail(email, mailFrom, Buffer.from(message));
}

/**
 * The opening lines of each layout a delay warning may come in, with failure words in all of
 * them (the real templates' openings: permanent-failures.ts and delays.ts name the sources).
 */
const LAYOUTS: { format: string; headers: string[]; opening: (r: string) => string[] }[] = [
  {
    format: 'prose',
    headers: ['From: Mail Administrator <postmaster@mail.example.com>', 'Subject: Undeliverable: Hello'],
    opening: (r) => [`Your message could not be delivered to ${r}.`],
  },
  {
    format: 'postfix',
    headers: ['From: MAILER-DAEMON@mx.example.net (Mail Delivery System)', 'Subject: Undelivered Mail Returned to Sender'],
    opening: (r) => [
      'This is the mail system at host mx.example.net.',
      '',
      "I'm sorry to have to inform you that your message could not",
      "be delivered to one or more recipients. It's attached below.",
      '',
      `<${r}>: host store.example.net[192.0.2.26] said:`,
    ],
  },
  {
    format: 'qmail',
    headers: ['From: MAILER-DAEMON@mx.example.net', 'Subject: failure notice'],
    opening: (r) => [
      'Hi. This is the qmail-send program at mx.example.net.',
      "I'm afraid I wasn't able to deliver your message to the following addresses.",
      '',
      `<${r}>:`,
    ],
  },
  {
    format: 'zoho',
    headers: ['From: mailer-daemon@mail.zoho.com', 'Subject: Undelivered Mail Returned to Sender', 'X-ZohoMail: Si CHF_MF_NL SS_10'],
    opening: (r) => [
      'This message was created automatically by mail delivery software.',
      'A message that you sent could not be delivered to one or more of its recipients.',
      '',
      `${r}, ERROR CODE :`,
    ],
  },
  {
    format: 'exim',
    headers: ['From: Mail Delivery System <Mailer-Daemon@relay.example.org>', 'Subject: Mail delivery failed: returning message to sender'],
    opening: (r) => [
      'This message was created automatically by mail delivery software.',
      '',
      'A message that you sent could not be delivered to one or more of its',
      'recipients. The following address(es) failed:',
      '',
      `  ${r}`,
    ],
  },
];

/** A report in `layout` about `recipient`, saying `words` after its opening. */
const inLayout = (layout: (typeof LAYOUTS)[number], recipient: string, words: string[]) =>
  mail([...layout.headers, `To: ${RETURN_PATH}`], [...layout.opening(recipient), ...words]);

describe('recognising what reaches a return path', () => {
  for (const sample of [...PERMANENT_FAILURES, ...DELAYS, ...COMPLAINTS, ...AUTO_REPLIES]) {
    it(sample.family, async () => {
      const recipient = sample.to[0]!;
      const found = await recognise(sample.message(RETURN_PATH, recipient), sample.mailFrom);
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
      const report = (await recognise(sample.message(RETURN_PATH, sample.to[0]!), '')).reports.find((r) => r.recipients.includes(sample.to[0]!));
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

  describe('a delay warning is a delay whatever its layout, failure words or not', () => {
    const WORDINGS = [
      ['will retry', ['    421 Service not available', '', 'The server will retry delivery for 2 more days.']],
      ['delayed', ['    421 Service not available', '', 'Delivery of this message has been delayed.']],
      ['still trying', ['    421 Service not available', '', 'The server is still trying to deliver it.']],
      ['a 4.x.x status, no delay word', ['    451 4.4.1 No answer from host']],
      ['a 4.x.x status after a 5xx code', ['    554 4.4.2 Connection dropped by the remote host']],
    ] as const;
    for (const layout of LAYOUTS) {
      for (const [wording, words] of WORDINGS) {
        it(`${layout.format}: ${wording}`, async () => {
          const found = await recognise(inLayout(layout, 'later@example.net', [...words]), '');
          assert.equal(found.format, layout.format, found.reason);
          assert.equal(found.verdict, 'delay', `${found.reason}: ${JSON.stringify(found.reports)}`);
          assert.ok(
            found.reports.every((r) => r.kind === 'delayed' && r.status.startsWith('4')),
            JSON.stringify(found.reports),
          );
        });
      }
    }
  });

  describe('words that only look like a delay leave a failure a failure', () => {
    const NOT_DELAYS = [
      ['will not be retried', ['    550 5.1.1 User unknown', '', 'This message will not be retried.']],
      ['will not try to redeliver', ['    550 5.1.1 User unknown', '', 'Microsoft Exchange will not try to redeliver this message for you.']],
      ['has stopped trying', ['    550 5.1.1 User unknown', '', 'The server has tried to deliver this message, without success, and has stopped trying.']],
    ] as const;
    for (const [wording, words] of NOT_DELAYS) {
      it(wording, async () => {
        const found = await recognise(inLayout(LAYOUTS[0]!, 'gone@example.net', [...words]), '');
        assert.equal(found.verdict, 'bounce', found.reason);
        assert.equal(found.reports[0]?.kind === 'failed' && found.reports[0].status, '5.1.1');
      });
    }

    it('an IP address that starts with 4 is no 4.x.x status', async () => {
      const exim = LAYOUTS.find((l) => l.format === 'exim')!;
      const words = [
        '    host mx.example.net [4.2.2.1]',
        '    SMTP error from remote mail server after RCPT TO:<gone@example.net>:',
        '    550 Unrouteable address',
      ];
      const found = await recognise(inLayout(exim, 'gone@example.net', words), '');
      assert.equal(found.verdict, 'bounce', found.reason);
      assert.equal(found.reports[0]?.kind === 'failed' && found.reports[0].status, '5.0.0');
    });

    it('a server that gave up after temporary failures: a failure with the 4.x.x status (Transient, never suppressed)', async () => {
      // Exchange Online's expired message (MicrosoftDocs/SupportArticles-docs, the NDR pages:
      // "The server has tried to deliver this message, without success, and has stopped
      // trying." and "550 4.4.7 QUEUE.Expired; message expired").
      const words = [
        'The server has tried to deliver this message, without success, and has stopped trying.',
        '',
        '    550 4.4.7 QUEUE.Expired; message expired',
      ];
      const found = await recognise(inLayout(LAYOUTS[0]!, 'expired@example.net', words), '');
      assert.equal(found.verdict, 'bounce', found.reason);
      assert.equal(found.reports[0]?.kind === 'failed' && found.reports[0].status, '4.4.7');
    });
  });

  it('a message that cannot be parsed is unrecognised, and says so', () => {
    assert.deepEqual(recogniseReturnPathMail(undefined, '', Buffer.alloc(0)), {
      verdict: 'unrecognised',
      format: 'none',
      reason: 'the message could not be parsed',
      reports: [],
    });
  });
});
