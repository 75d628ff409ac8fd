// SMTP replies as delivery reads them, without a server: the code and the enhanced status code
// (RFC 3463) are taken apart from the text, multi-line replies are joined, and a 5xx reply
// becomes the bounce Resend reports, its subType picked by the enhanced code alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bounceOf, LOCAL_REPLIES, parseReply } from '../../src/delivery/bounce-codes.js';

describe('unit: parseReply', () => {
  it('takes a one-line reply apart into code, enhanced code and text', () => {
    assert.deepEqual(parseReply('550 5.1.1 Unknown user'), { code: 550, enhanced: '5.1.1', text: 'Unknown user', raw: '550 5.1.1 Unknown user' });
  });

  it('joins a multi-line reply with spaces, keeps the raw lines, and takes the first enhanced code', () => {
    const raw =
      '550-5.1.1 The email account that you tried to reach does not exist.\r\n550-5.1.1 Please try double-checking.\r\n550 5.1.1 https://support.example/answer';
    assert.deepEqual(parseReply(raw), {
      code: 550,
      enhanced: '5.1.1',
      text: 'The email account that you tried to reach does not exist. Please try double-checking. https://support.example/answer',
      raw,
    });
    assert.equal(parseReply('550 5.1.1 first\n550 5.2.2 second').enhanced, '5.1.1', 'a later line does not replace the first code');
  });

  it('finds the enhanced code on a later line when the first line has none', () => {
    assert.deepEqual(parseReply('550-Mailbox unavailable\r\n550 5.1.1 no such user'), {
      code: 550,
      enhanced: '5.1.1',
      text: 'Mailbox unavailable no such user',
      raw: '550-Mailbox unavailable\r\n550 5.1.1 no such user',
    });
  });

  it('trims surrounding whitespace and the final CRLF from raw', () => {
    assert.deepEqual(parseReply('  452 4.2.2 Over quota  \r\n'), { code: 452, enhanced: '4.2.2', text: 'Over quota', raw: '452 4.2.2 Over quota' });
  });

  it('reads a reply without an enhanced code, and one with no text at all', () => {
    assert.deepEqual(parseReply('554 Transaction failed'), { code: 554, enhanced: undefined, text: 'Transaction failed', raw: '554 Transaction failed' });
    assert.deepEqual(parseReply('550'), { code: 550, enhanced: undefined, text: '', raw: '550' });
    assert.deepEqual(parseReply('552 5.2.2'), { code: 552, enhanced: '5.2.2', text: '', raw: '552 5.2.2' });
  });

  it('gives code 0 to an empty reply and to text that starts with no code', () => {
    assert.deepEqual(parseReply(''), { code: 0, enhanced: undefined, text: '', raw: '' });
    assert.deepEqual(parseReply('connection reset'), { code: 0, enhanced: undefined, text: 'connection reset', raw: 'connection reset' });
  });

  it('reads three-digit detail codes and leaves codes of an unknown class in the text', () => {
    assert.equal(parseReply('556 5.1.10 null MX').enhanced, '5.1.10');
    assert.equal(parseReply('550 5.7.509 Access denied').enhanced, '5.7.509');
    assert.deepEqual(parseReply('550 6.1.1 not a class'), { code: 550, enhanced: undefined, text: '6.1.1 not a class', raw: '550 6.1.1 not a class' });
  });

  it('keeps unicode text as it came', () => {
    assert.equal(parseReply('550 5.1.1 Empfänger unbekannt 📭').text, 'Empfänger unbekannt 📭');
  });

  // An RFC 3463 code ends at a space or the line's end: "5.1.1x" or "5.1.1234" is no code, not
  // a code followed by text.
  it('does not read a longer token such as "5.1.1x" or "5.1.1234" as an enhanced code', () => {
    assert.equal(parseReply('550 5.1.1x foo').enhanced, undefined);
    assert.equal(parseReply('550 5.1.1234 foo').enhanced, undefined);
  });
});

describe('unit: bounceOf', () => {
  const subType = (raw: string) => bounceOf(parseReply(raw)).subType;

  it('classifies 5.1.1 as a permanent NoEmail bounce carrying the text and the raw reply', () => {
    assert.deepEqual(bounceOf(parseReply('550 5.1.1 The email account that you tried to reach does not exist')), {
      type: 'Permanent',
      subType: 'NoEmail',
      message: 'The email account that you tried to reach does not exist',
      diagnosticCode: ['550 5.1.1 The email account that you tried to reach does not exist'],
    });
  });

  it('classifies 5.2.2 as MailboxFull, 5.3.4 and 5.2.3 as MessageTooLarge, every 5.6.x as ContentRejected', () => {
    assert.equal(subType('552 5.2.2 Mailbox full'), 'MailboxFull');
    assert.equal(subType('552 5.3.4 Message size exceeds fixed maximum message size'), 'MessageTooLarge');
    assert.equal(subType('552 5.2.3 Message length exceeds administrative limit'), 'MessageTooLarge');
    assert.equal(subType('554 5.6.0 Content rejected'), 'ContentRejected');
    assert.equal(subType('554 5.6.3 Conversion required but not supported'), 'ContentRejected');
    assert.equal(subType('554 5.6.999 x'), 'ContentRejected');
  });

  it('calls everything else General: other codes, longer codes that share a prefix, no code, 4.x.x', () => {
    assert.equal(subType('554 5.7.1 Relay access denied'), 'General');
    assert.equal(subType('550 5.1.10 Recipient has a null MX'), 'General');
    assert.equal(subType('550 5.1.12 x'), 'General');
    assert.equal(subType('552 5.3.40 x'), 'General');
    assert.equal(subType('550 Requested action not taken'), 'General');
    assert.equal(subType('450 4.2.2 Mailbox full'), 'General', 'the class counts: 4.2.2 is not 5.2.2');
  });

  it('uses the raw reply as the message when the reply has no text', () => {
    assert.deepEqual(bounceOf(parseReply('550')), { type: 'Permanent', subType: 'General', message: '550', diagnosticCode: ['550'] });
    assert.deepEqual(bounceOf(parseReply('552 5.2.2')), { type: 'Permanent', subType: 'MailboxFull', message: '552 5.2.2', diagnosticCode: ['552 5.2.2'] });
  });
});

describe("unit: Postline's own replies", () => {
  it('answers an unknown test user with 550 5.1.1, a NoEmail bounce', () => {
    assert.equal(LOCAL_REPLIES.unknownUser(), '550 5.1.1 Unknown User');
    assert.deepEqual(bounceOf(parseReply(LOCAL_REPLIES.unknownUser())), {
      type: 'Permanent',
      subType: 'NoEmail',
      message: 'Unknown User',
      diagnosticCode: ['550 5.1.1 Unknown User'],
    });
  });

  it('answers undeliverable domains with General bounces naming the domain', () => {
    const cases: [string, number, string][] = [
      [LOCAL_REPLIES.noSuchDomain('nowhere.test'), 550, '5.1.2'],
      [LOCAL_REPLIES.nullMx('nomail.test'), 556, '5.1.10'],
      [LOCAL_REPLIES.noAddress('empty.test'), 550, '5.1.2'],
    ];
    for (const [raw, code, enhanced] of cases) {
      const reply = parseReply(raw);
      assert.equal(reply.code, code, raw);
      assert.equal(reply.enhanced, enhanced, raw);
      assert.equal(bounceOf(reply).subType, 'General', raw);
    }
    assert.equal(parseReply(LOCAL_REPLIES.nullMx('nomail.test')).text, 'nomail.test: the domain accepts no mail (null MX, RFC 7505)');
  });

  it('answers a message over the size limit with a MessageTooLarge bounce naming the limit', () => {
    const raw = LOCAL_REPLIES.messageTooLarge('10485760 bytes');
    assert.equal(raw, "552 5.3.4 Message size exceeds the server's limit (10485760 bytes)");
    assert.equal(bounceOf(parseReply(raw)).subType, 'MessageTooLarge');
  });
});
