// A small submission's header section is read by header-fields.ts instead of postal-mime's
// whole parse; what the accept pipeline gets must not change. Each message below, and a few
// thousand made by mixing awkward lines, is read both ways and must give the same fields.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readHeaderFields } from '../../src/message/header-fields.js';
import { parseInProcess } from '../../src/message/parse-message.js';

/** The whole parse's fields (postal-mime), as a submission with an idempotency key gets them. */
async function byPostalMime(raw: Buffer) {
  const { bodies: _bodies, ...fields } = await parseInProcess(raw, 'submission');
  return fields;
}

const same = async (raw: Buffer, label: string) => assert.deepEqual(readHeaderFields(raw), await byPostalMime(raw), label);

const MESSAGES: Record<string, string | Buffer> = {
  plain: 'From: A <a@example.com>\r\nTo: b@example.net\r\nSubject: Hello\r\n\r\nBody\r\n',
  'bare LF': 'From: a@example.com\nTo: b@example.net\nSubject: Hi\n\nBody\n',
  'folded with tabs and spaces': 'Subject: one\r\n\ttwo\r\n   three\r\nTo: x@example.com,\r\n y@example.com\r\n\r\nb',
  'encoded words': 'Subject: =?UTF-8?B?w6lsw6h2ZQ==?= =?ISO-8859-1?Q?caf=E9?=\r\nTo: =?UTF-8?Q?J=C3=BCrgen?= <j@example.de>\r\n\r\n',
  'raw UTF-8': 'Subject: Grüße aus Köln 🎉\r\nTo: "Zoë" <zoe@example.com>\r\n\r\n',
  'invalid UTF-8 and Latin-1': Buffer.concat([Buffer.from('Subject: caf'), Buffer.from([0xe9, 0xff, 0xc3]), Buffer.from('\r\nTo: a@example.com\r\n\r\n')]),
  'a BOM at a line start': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Subject: bom\r\n\r\n')]),
  'CR CR LF and bare CR inside': 'Subject: a\rb\r\r\nTo: c@example.com\r\r\n\r\r\nX-After: not a header\r\n',
  'empty first line (no header)': '\r\nSubject: in the body\r\n',
  'only a header, no body': 'Subject: no body\r\nTo: a@example.com',
  'first line is a continuation': ' Subject: odd\r\nTo: a@example.com\r\n\r\n',
  'line without a colon': 'Subject ok\r\nTo: a@example.com\r\n\r\n',
  'empty values': 'Subject:\r\nTo:\r\nCc: \r\nReply-To:\t\r\n\r\n',
  'repeated To and Cc, groups': 'To: a@example.com\r\nTo: Team: b@example.com, c@example.com;\r\nCc: d@example.com\r\nCc: "E, F" <e@example.com>\r\n\r\n',
  'reply-to and odd cases in names': 'REPLY-TO: r@example.com\r\nsUbJeCt: Mixed\r\nTO: t@example.com\r\n\r\n',
  'unicode whitespace': 'Subject: a\u00a0b\u2003c\u3000d\r\nX-Zero-Width: e\u200bf\r\n\r\n',
  'multiple subjects': 'Subject: first\r\nSubject: second\r\n\r\n',
  'whitespace-only line inside the header': 'Subject: a\r\n \r\nTo: a@example.com\r\n\r\n',
  'NUL-free control characters': 'Subject: tab\there\x0bvt\x0cff\r\n\r\n',
  'a MIME header with a body that is not read':
    'Content-Type: multipart/mixed; boundary=x\r\nSubject: m\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nhi\r\n--x--\r\n',
  'malformed addresses': 'To: <<a@@example.com>>, "unterminated <b@example.com, ,,; c\r\nCc: @, <>\r\n\r\n',
  empty: '',
};

const FRAGMENTS = [
  'Subject: s',
  'Subject: =?utf-8?q?a_b?=',
  'To: a@example.com',
  'To: "A, B" <ab@example.com>, c@example.com',
  'Cc: Group: d@example.com;',
  'Reply-To: r@example.com',
  'X-Custom: value',
  ' continued',
  '\tcontinued',
  'No colon here',
  'To:',
  ':empty name',
  'Subject: ü €',
  'To: =?utf-8?b?w7w=?= <u@example.com>',
  'Cc: (comment) e@example.com',
  '  ',
  'X:\u00a0nbsp',
];
const ENDINGS = ['\r\n', '\n', '\r\r\n'];

function* mixed(count: number): Generator<Buffer> {
  let seed = 20261125; // xorshift32: the same messages every run
  const next = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  for (let i = 0; i < count; i++) {
    let text = '';
    for (let lines = 1 + next(8); lines > 0; lines--) text += FRAGMENTS[next(FRAGMENTS.length)]! + ENDINGS[next(ENDINGS.length)]!;
    if (next(4) > 0) text += `${ENDINGS[next(ENDINGS.length)]!}Body: not a header\r\n`;
    yield Buffer.from(text);
  }
}

describe('SMTP: header fields read as postal-mime reads them', () => {
  for (const [label, message] of Object.entries(MESSAGES)) {
    it(label, () => same(Buffer.isBuffer(message) ? message : Buffer.from(message), label));
  }

  it('mixed header lines, 3,000 messages', async () => {
    let n = 0;
    for (const raw of mixed(3000)) await same(raw, `message ${n++}: ${JSON.stringify(raw.toString())}`);
  });
});
