// Complaints: Hotmail's older format (no feedback-report part; the recipient in
// X-HmXmrOriginalRecipient, on the report or on the message it returns) and a standard ARF
// report for comparison. Each records email.complained and suppresses the address.
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
    // source: Hotmail's classic complaint (JMRP before ARF), as sisimai's ARF reader takes it
    // (sisimai/rb-sisimai lib/sisimai/arf.rb: From staff@hotmail.com, "Subject: complaint about
    // message from <IP>", multipart/mixed, no feedback-report part, the complainer in the
    // X-HmXmrOriginalRecipient header of the returned message/rfc822 part); the returned
    // message is ours, its To redacted.
    family: 'hotmail complaint (JMRP, multipart/mixed, recipient in the returned message)',
    to: ['complainer@example.net'],
    mailFrom: 'staff@hotmail.com',
    message: (rp, r) =>
      mail(
        [
          'From: staff@hotmail.com',
          `To: ${rp}`,
          'Subject: complaint about message from 192.0.2.10',
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="JMRP-BOUNDARY"',
        ],
        [
          '--JMRP-BOUNDARY',
          'Content-Type: message/rfc822',
          'Content-Disposition: inline',
          '',
          `X-HmXmrOriginalRecipient: <${r}>`,
          ...original('redacted@hotmail.com'),
          '--JMRP-BOUNDARY--',
        ],
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
