// Complaints: Hotmail's older format (no feedback-report part; the recipient in
// X-HmXmrOriginalRecipient) and a standard ARF report for comparison.
import { mail, original, type Sample } from './sample.js';

export const COMPLAINTS: Sample[] = [
  {
    family: 'hotmail complaint (pre-ARF)',
    to: ['reader@example.net'],
    mailFrom: 'staff@hotmail.com',
    message: (rp, r) =>
      mail(
        [
          'From: staff@hotmail.com',
          `To: ${rp}`,
          'Subject: complaint about message from 192.0.2.10',
          `X-HmXmrOriginalRecipient: <${r}>`,
          'MIME-Version: 1.0',
          'Content-Type: message/rfc822',
        ],
        original('redacted@hotmail.com'),
      ),
    expected: { verdict: 'complaint', format: 'hotmail-complaint', event: 'email.complained' },
  },
  {
    family: 'arf (RFC 5965)',
    to: ['subscriber@example.net'],
    mailFrom: 'fbl@isp.example',
    message: (rp, r) =>
      mail(
        [
          'From: Feedback Loop <fbl@isp.example>',
          `To: ${rp}`,
          'Subject: FW: Hello',
          'MIME-Version: 1.0',
          'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
        ],
        [
          '--ARF',
          'Content-Type: text/plain',
          '',
          'This is an email abuse report.',
          '',
          '--ARF',
          'Content-Type: message/feedback-report',
          '',
          'Feedback-Type: abuse',
          'User-Agent: SomeFBL/1.0',
          'Version: 1',
          `Original-Rcpt-To: <${r}>`,
          '',
          '--ARF',
          'Content-Type: message/rfc822',
          '',
          ...original(r),
          '--ARF--',
        ],
      ),
    expected: { verdict: 'complaint', format: 'arf', event: 'email.complained' },
  },
];
