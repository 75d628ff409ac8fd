// SMTP replies as delivery reads them, without a server: the code and the enhanced status code
// (RFC 3463) are taken apart from the text, multi-line replies are joined, and a final reply
// becomes the bounce Resend reports, classed by its code and wording (a corpus of real replies).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bounceOf, LOCAL_REPLIES, parseReply } from '../../src/delivery/bounce-codes.js';
import { BOUNCE_REPLY_CORPUS } from './bounce-reply-corpus.js';

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
  const classOf = (raw: string) => {
    const { type, subType } = bounceOf(parseReply(raw));
    return `${type} ${subType}`;
  };

  it('classifies 5.1.1 as a permanent NoEmail bounce carrying the text and the raw reply', () => {
    assert.deepEqual(bounceOf(parseReply('550 5.1.1 The email account that you tried to reach does not exist')), {
      type: 'Permanent',
      subType: 'NoEmail',
      message: 'The email account that you tried to reach does not exist',
      diagnosticCode: ['550 5.1.1 The email account that you tried to reach does not exist'],
    });
  });

  it('classes every reply of the corpus (real wording of providers and servers) as its source means it', () => {
    const wrong = BOUNCE_REPLY_CORPUS.filter((c) => classOf(c.reply) !== `${c.type} ${c.subType}`).map(
      (c) => `${c.reply}\n    expected ${c.type} ${c.subType}, got ${classOf(c.reply)} (${c.source})`,
    );
    assert.deepEqual(wrong, []);
    assert.ok(BOUNCE_REPLY_CORPUS.length >= 40);
  });

  it('trusts an exact enhanced code over the text, and the text over the code class', () => {
    assert.equal(classOf('552 5.2.2 Your message was rejected'), 'Transient MailboxFull');
    assert.equal(classOf('550 5.7.1 User unknown'), 'Permanent NoEmail');
    assert.equal(classOf('550 5.7.1 Nope'), 'Transient General');
  });

  it('tells a blocked sender (Spamhaus) from spam content, and a full mailbox from a missing one', () => {
    assert.equal(classOf('554 Client host rejected: listed at zen.spamhaus.org'), 'Transient General');
    assert.equal(classOf('554 Message rejected as spam'), 'Transient ContentRejected');
    assert.equal(classOf('552 Mailbox is full'), 'Transient MailboxFull');
    assert.equal(classOf('550 Mailbox not found'), 'Permanent NoEmail');
  });

  it('calls a 5xx it cannot place Permanent General, a final 4xx Transient General, and no reply Undetermined', () => {
    assert.equal(classOf('550 Requested action not taken'), 'Permanent General');
    assert.equal(classOf('451 4.3.0 Try again later'), 'Transient General');
    assert.equal(classOf('450 4.2.2 Mailbox full'), 'Transient MailboxFull');
    assert.equal(classOf('connection reset'), 'Undetermined Undetermined');
  });

  it('uses the raw reply as the message when the reply has no text', () => {
    assert.deepEqual(bounceOf(parseReply('550')), { type: 'Permanent', subType: 'General', message: '550', diagnosticCode: ['550'] });
    assert.deepEqual(bounceOf(parseReply('552 5.2.2')), { type: 'Transient', subType: 'MailboxFull', message: '552 5.2.2', diagnosticCode: ['552 5.2.2'] });
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

  it('answers undeliverable domains with permanent bounces naming the domain (a null MX: the address cannot exist)', () => {
    const cases: [string, number, string, string][] = [
      [LOCAL_REPLIES.noSuchDomain('nowhere.test'), 550, '5.1.2', 'General'],
      [LOCAL_REPLIES.nullMx('nomail.test'), 556, '5.1.10', 'NoEmail'],
      [LOCAL_REPLIES.noAddress('empty.test'), 550, '5.1.2', 'General'],
    ];
    for (const [raw, code, enhanced, subType] of cases) {
      const reply = parseReply(raw);
      assert.equal(reply.code, code, raw);
      assert.equal(reply.enhanced, enhanced, raw);
      assert.deepEqual([bounceOf(reply).type, bounceOf(reply).subType], ['Permanent', subType], raw);
    }
    assert.equal(parseReply(LOCAL_REPLIES.nullMx('nomail.test')).text, 'nomail.test: the domain accepts no mail (null MX, RFC 7505)');
  });

  it('answers a message over the size limit with a MessageTooLarge bounce naming the limit', () => {
    const raw = LOCAL_REPLIES.messageTooLarge('10485760 bytes');
    assert.equal(raw, "552 5.3.4 Message size exceeds the server's limit (10485760 bytes)");
    assert.deepEqual([bounceOf(parseReply(raw)).type, bounceOf(parseReply(raw)).subType], ['Transient', 'MessageTooLarge']);
  });
});
