// Auto-replies that reach a return path: never a bounce or a complaint, kept as what they are.
// Some say words a bounce says ("not delivered", a null sender) to check that the auto-reply
// signs win; and a human's reply, which is nothing Postline recognises.
import { mail, type Sample } from './sample.js';

const AUTO_REPLY = { verdict: 'auto_reply', format: 'auto-reply', event: null } as const;

export const AUTO_REPLIES: Sample[] = [
  {
    family: 'out of office (RFC 3834, null sender)',
    to: ['away@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mail(
        [`From: Away Person <${r}>`, `To: ${rp}`, 'Subject: Out of Office: Hello', 'Auto-Submitted: auto-replied', 'X-Auto-Response-Suppress: All'],
        [
          'I am out of the office until Monday with limited access to e-mail.',
          'Your message has not been delivered to my colleagues; please resend urgent matters to them.',
        ],
      ),
    expected: AUTO_REPLY,
  },
  {
    family: 'vacation (X-Autoreply)',
    to: ['holiday@example.net'],
    mailFrom: 'holiday@example.net',
    message: (rp, r) =>
      mail([`From: ${r}`, `To: ${rp}`, 'Subject: Re: Hello', 'X-Autoreply: yes'], ['I am on vacation until the 15th and will answer when I am back.']),
    expected: AUTO_REPLY,
  },
  {
    family: 'auto-responder (Precedence: auto_reply)',
    to: ['sales@example.net'],
    mailFrom: 'sales@example.net',
    message: (rp, r) =>
      mail([`From: ${r}`, `To: ${rp}`, 'Subject: Re: Hello', 'Precedence: auto_reply'], ['Thanks, a member of our sales team will contact you.']),
    expected: AUTO_REPLY,
  },
  {
    family: 'challenge-response',
    to: ['guarded@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mail(
        [`From: Spam Guard <guard@example.net>`, `To: ${rp}`, 'Subject: Please confirm your message (challenge-response)', 'Auto-Submitted: auto-replied'],
        [`Your message to ${r} has been held and not delivered yet.`, 'To verify that you are a human, reply to this message without changing its subject.'],
      ),
    expected: AUTO_REPLY,
  },
  {
    family: 'we received your message',
    to: ['support@example.net'],
    mailFrom: 'support@example.net',
    message: (rp) =>
      mail(
        ['From: Support <support@example.net>', `To: ${rp}`, 'Subject: [Ticket #4711] Hello'],
        ['Thank you for contacting us. We have received your message and will answer within 24 hours.'],
      ),
    expected: AUTO_REPLY,
  },
  {
    family: 'out of office in words only (null sender, no header, bounce-like wording)',
    to: ['leave@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mail(
        [`From: On Leave <${r}>`, `To: ${rp}`, 'Subject: Re: Hello'],
        ['I am currently on leave and your message could not be delivered to me personally.', 'It will be read when I am back on the 20th.'],
      ),
    expected: AUTO_REPLY,
  },
  {
    family: 'an automatic notice (Auto-Submitted alone)',
    to: ['robot@example.net'],
    mailFrom: 'robot@example.net',
    message: (rp, r) => mail([`From: ${r}`, `To: ${rp}`, 'Subject: Re: Hello', 'Auto-Submitted: auto-generated'], ['This mailbox is not monitored.']),
    expected: AUTO_REPLY,
  },
  {
    family: 'a human reply (unrecognised)',
    to: ['friend@example.net'],
    mailFrom: 'friend@example.net',
    message: (rp, r) => mail([`From: ${r}`, `To: ${rp}`, 'Subject: Re: Hello'], ['Hi, nice to hear from you.']),
    expected: { verdict: 'unrecognised', format: 'none', event: null },
  },
];
