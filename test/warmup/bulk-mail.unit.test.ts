// What warm-up counts as bulk mail (src/warmup/bulk-mail.ts): a broadcast, or a message whose
// header says so with List-Unsubscribe or Precedence: bulk, list or junk; nothing in the body
// or in another header's value counts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBulkMail } from '../../src/warmup/bulk-mail.js';

const message = (headers: string, body = 'Hello\r\n') => ({ broadcastId: null, mime: Buffer.from(`${headers}\r\n${body}`) });
const BASE = 'From: a@sender.test\r\nTo: b@example.com\r\nSubject: Reset your password\r\n';

describe('bulk mail, as warm-up reads it', () => {
  it('is a broadcast', () => {
    assert.equal(isBulkMail({ broadcastId: '3b1f1c4e-0000-4000-8000-000000000000', mime: null }), true);
  });

  it('is a message with List-Unsubscribe, in any case, folded or not', () => {
    assert.equal(isBulkMail(message(`${BASE}List-Unsubscribe: <https://sender.test/u>\r\n`)), true);
    assert.equal(isBulkMail(message(`${BASE}list-unsubscribe:\r\n <https://sender.test/u>\r\n`)), true);
  });

  it('is a message with Precedence: bulk, list or junk', () => {
    for (const value of ['bulk', 'list', 'Junk', ' BULK']) assert.equal(isBulkMail(message(`${BASE}Precedence:${value}\r\n`)), true, value);
    assert.equal(isBulkMail(message(`${BASE}Precedence:\r\n\tlist\r\n`)), true, 'folded');
  });

  it('is not a transactional message, whatever its body or other headers name', () => {
    assert.equal(isBulkMail(message(BASE)), false);
    assert.equal(isBulkMail(message(`${BASE}Precedence: auto_reply\r\n`)), false);
    assert.equal(isBulkMail(message(`${BASE}X-Note: List-Unsubscribe: no\r\n`)), false);
    assert.equal(isBulkMail(message(`DKIM-Signature: v=1; h=From:To:Subject:\r\n\tList-Unsubscribe:List-Unsubscribe-Post; b=abc\r\n${BASE}`)), false);
    assert.equal(isBulkMail(message(BASE, 'List-Unsubscribe: <https://x.test>\r\nPrecedence: bulk\r\n')), false, 'in the body');
    assert.equal(
      isBulkMail({ broadcastId: null, mime: Buffer.from(`${BASE}\nList-Unsubscribe: <https://x.test>\n`.replace(/\r\n/g, '\n')) }),
      false,
      'LF line ends',
    );
    assert.equal(isBulkMail({ broadcastId: null, mime: null }), false);
  });
});
