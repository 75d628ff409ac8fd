// compose.ts writes nodemailer's MIME tree without its streams (the accept hot path). This
// guards that shortcut: for every kind of message it handles, the bytes must equal what
// MailComposer.build() writes. Run it again whenever nodemailer is upgraded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import MailComposer from 'nodemailer/lib/mail-composer';
import { composeMessage } from '../../src/emails/compose.js';
import { parseEmailRequest } from '../../src/emails/email-request.js';

const cases: Record<string, unknown>[] = [
  { html: '<p>hi</p>' },
  { text: 'plain' },
  { html: `<p>Grüße ✓</p>\n<p>${'long '.repeat(100)}</p>`, text: `ü\n${'x'.repeat(300)}` },
  { html: '日本語のテキスト'.repeat(50) },
  { text: 'a\r\nb\nc\rd', headers: { 'X-A': 'ünï', 'List-Unsubscribe': `<https://x/${'y'.repeat(200)}>` } },
  { html: `<p>${'x'.repeat(2000)}</p>` },
  { text: 'trailing spaces   \nand tabs\t\n' },
];
const boundaries = (b: Buffer) => b.toString('latin1').replace(/--_NmP-[0-9a-f]+-Part_\d+/g, 'BOUNDARY');
const crlf = (s: string) => s.replace(/\r\n|\r|\n/g, '\r\n');

describe('compose', () => {
  for (const [i, c] of cases.entries()) {
    it(`writes the same bytes as MailComposer.build() (case ${i + 1})`, async () => {
      const request = parseEmailRequest({
        from: 'Acme <a@acme.test>',
        to: ['b@x.org', 'Ü <c@y.org>'],
        cc: 'd@z.org',
        reply_to: 'r@acme.test',
        subject: 'Sübject',
        ...c,
      });
      const date = new Date('2026-01-01T00:00:00Z');
      const text = request.text === undefined ? null : request.text;
      const ours = await composeMessage({ request, text, messageId: '<m@acme.test>', date });
      const mailbox = (m: { name: string; address: string }) => ({ name: m.name, address: m.address });
      const theirs = await new MailComposer({
        from: mailbox(request.sender),
        to: request.toMailboxes.map(mailbox),
        cc: request.ccMailboxes.map(mailbox),
        replyTo: request.replyToMailboxes.map(mailbox),
        subject: request.subject,
        html: request.html === null ? undefined : crlf(request.html),
        text: text === null ? undefined : crlf(text),
        headers: request.headers ?? undefined,
        messageId: '<m@acme.test>',
        date,
      })
        .compile()
        .build();
      assert.equal(boundaries(ours), boundaries(theirs));
    });
  }
});
