// The exact fields read from a submission's header section. header-fields.test.ts holds the
// reader to postal-mime's result over a corpus, which would not notice a mistake the two
// share; this file pins the values themselves, for what matters to what Postline stores:
// where the header ends, how lines unfold, which Subject and which To count, and that an
// encoded word can decode to CR/LF that the reader passes on unchanged.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readHeaderFields } from '../../src/message/header-fields.js';

const read = (text: string | Buffer) => readHeaderFields(Buffer.isBuffer(text) ? text : Buffer.from(text));

describe('unit: readHeaderFields', () => {
  it('reads lower-cased names and trimmed values, up to the first empty line', () => {
    assert.deepEqual(read('SUBJECT:  Hi  \r\nTo: ann@example.org\r\n\r\nBcc: victim@example.org\r\nSubject: body\r\n'), {
      headers: [
        { key: 'subject', value: 'Hi' },
        { key: 'to', value: 'ann@example.org' },
      ],
      subject: 'Hi',
      to: [{ address: 'ann@example.org', name: '' }],
      cc: [],
      replyTo: [],
    });
  });

  it('ends the header at an empty line of bare LF or of CRs before the LF', () => {
    assert.deepEqual(read('Subject: a\n\nTo: x@example.org\n').headers, [{ key: 'subject', value: 'a' }]);
    assert.deepEqual(read('Subject: a\r\r\n\r\r\nTo: x@example.org\r\n').headers, [{ key: 'subject', value: 'a' }]);
  });

  it('unfolds continuation lines into one value, each run of whitespace one space', () => {
    assert.deepEqual(read('Subject: one\r\n two\r\n\t three\r\nTo: a@example.org,\r\n b@example.org\r\n\r\n'), {
      headers: [
        { key: 'subject', value: 'one two three' },
        { key: 'to', value: 'a@example.org, b@example.org' },
      ],
      subject: 'one two three',
      to: [
        { address: 'a@example.org', name: '' },
        { address: 'b@example.org', name: '' },
      ],
      cc: [],
      replyTo: [],
    });
  });

  it('keeps a bare CR inside a line as whitespace: it starts no new field', () => {
    assert.deepEqual(read('Subject: a\rBcc: victim@example.org\r\n\r\n').headers, [{ key: 'subject', value: 'a Bcc: victim@example.org' }]);
  });

  it('takes the last Subject, and lists repeated To fields last field first', () => {
    const fields = read('Subject: first\r\nSubject: second\r\nTo: a@example.org\r\nTo: b@example.org, "C, D" <c@example.org>\r\n\r\n');
    assert.equal(fields.subject, 'second');
    assert.deepEqual(fields.to, [
      { address: 'b@example.org', name: '' },
      { address: 'c@example.org', name: 'C, D' },
      { address: 'a@example.org', name: '' },
    ]);
  });

  it('reads groups in Cc and addresses in Reply-To', () => {
    const fields = read('Cc: Team: d@example.org, e@example.org;\r\nReply-To: "Support" <r@example.org>\r\n\r\n');
    assert.deepEqual(fields.cc, [
      {
        name: 'Team',
        group: [
          { address: 'd@example.org', name: '' },
          { address: 'e@example.org', name: '' },
        ],
      },
    ]);
    assert.deepEqual(fields.replyTo, [{ address: 'r@example.org', name: 'Support' }]);
  });

  it('decodes encoded words and raw UTF-8 in the subject and in names', () => {
    const fields = read(
      'Subject: =?UTF-8?B?w6lsw6h2ZQ==?= =?ISO-8859-1?Q?caf=E9?=\r\nTo: =?UTF-8?Q?J=C3=BCrgen?= <j@example.de>, "Zoë" <z@example.org>\r\n\r\n',
    );
    assert.equal(fields.subject, 'élèvecafé');
    assert.deepEqual(fields.to, [
      { address: 'j@example.de', name: 'Jürgen' },
      { address: 'z@example.org', name: 'Zoë' },
    ]);
  });

  it('passes on CR/LF that an encoded word decodes to: the subject is stored, never written back as a header', () => {
    assert.equal(read('Subject: =?utf-8?q?Hi=0D=0ABcc:_victim@example.org?=\r\n\r\n').subject, 'Hi\r\nBcc: victim@example.org');
    assert.equal(read('To: =?utf-8?q?Eve=0D=0A?= <e@example.org>\r\n\r\n').to[0]!.name, 'Eve\r\n');
  });

  it('replaces invalid UTF-8 with U+FFFD', () => {
    assert.equal(read(Buffer.concat([Buffer.from('Subject: caf'), Buffer.from([0xc3, 0xa9, 0xff]), Buffer.from('\r\n\r\n')])).subject, 'café\ufffd');
  });

  it('reads nothing from an empty message or one that starts with an empty line', () => {
    const none = { headers: [], subject: undefined, to: [], cc: [], replyTo: [] };
    assert.deepEqual(read(''), none);
    assert.deepEqual(read('\r\nSubject: in the body\r\n'), none);
  });

  it('keeps a line without a colon as a name with an empty value, and an empty Subject as no subject', () => {
    assert.deepEqual(read('No colon here\r\nSubject:\r\n\r\n'), {
      headers: [
        { key: 'no colon here', value: '' },
        { key: 'subject', value: '' },
      ],
      subject: undefined,
      to: [],
      cc: [],
      replyTo: [],
    });
  });
});
