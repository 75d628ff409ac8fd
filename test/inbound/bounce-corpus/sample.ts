// The shape of a sample in the corpus of messages that reach a return path: written here from
// the formats' public descriptions (sisimai's documentation of each mail server's layout, the
// servers' own templates), not copied from any collection. Each is a function of the return
// path it is sent to and the recipient it is about, with what Postline must make of it.

export interface Expected {
  verdict: 'bounce' | 'delay' | 'complaint' | 'auto_reply' | 'no_news' | 'unrecognised';
  format: string;
  /** The lifecycle event recorded for the recipient; null: none. */
  event: 'email.bounced' | 'email.delivery_delayed' | 'email.complained' | null;
  status?: string;
  bounce?: { type: string; subType: string };
}

export interface Sample {
  family: string;
  /** The email's recipients; the report is about the first. */
  to: string[];
  message: (returnPath: string, recipient: string) => string;
  /** The envelope sender it arrives with ('' for a bounce's null sender). */
  mailFrom: string;
  expected: Expected;
}

/** A message from header lines and body lines, CRLF-ended. */
export const mail = (headers: string[], body: string[]) => [...headers, 'Date: Mon, 1 Jan 2024 00:00:00 +0000', '', ...body, ''].join('\r\n');

/** Our original message as a bounce returns it (headers and body). */
export const original = (recipient: string) => [
  'From: Postline Tests <hello@sender.test>',
  `To: ${recipient}`,
  'Subject: Hello',
  'Message-ID: <orig-1@sender.test>',
  '',
  'Hello there',
];

/** A multipart/mixed bounce: the server's words, then the returned message as message/rfc822. */
export const mixed = (headers: string[], words: string[], recipient: string) =>
  mail(
    [...headers, 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="MIXED-BOUNDARY"'],
    [
      '--MIXED-BOUNDARY',
      'Content-Type: text/plain; charset=us-ascii',
      '',
      ...words,
      '',
      '--MIXED-BOUNDARY',
      'Content-Type: message/rfc822',
      '',
      ...original(recipient),
      '--MIXED-BOUNDARY--',
    ],
  );
