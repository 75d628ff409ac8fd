// Addresses as the API takes them, without a server: `addr` and `Name <addr>` read into name,
// address and domain; the dot-atom form, label rules and length limits (64 before the @,
// 254 in all, 63 per label); one mailbox per string; ASCII only; and CR, LF or NUL refused
// before anything else, since these values become header lines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMailbox } from '../../src/addresses/mailbox.js';

const INVALID = (field: string) =>
  `Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`;
const refuses = (value: string, message = INVALID('to'), field = 'to') =>
  assert.throws(
    () => parseMailbox(value, field),
    (err: any) => err.errorName === 'validation_error' && err.statusCode === 422 && err.message === message,
    JSON.stringify(value),
  );

describe('unit: parseMailbox, the forms taken', () => {
  it('reads a bare address, lower-casing the domain only', () => {
    assert.deepEqual(parseMailbox('Hello@ACME.Test', 'to'), { name: '', address: 'Hello@acme.test', domain: 'acme.test' });
  });

  it('trims whitespace around the value', () => {
    assert.deepEqual(parseMailbox('  hello@ACME.test ', 'from'), { name: '', address: 'hello@acme.test', domain: 'acme.test' });
  });

  it('reads a display name, with or without a space before <', () => {
    assert.deepEqual(parseMailbox('Acme <hello@acme.test>', 'from'), { name: 'Acme', address: 'hello@acme.test', domain: 'acme.test' });
    assert.deepEqual(parseMailbox('Acme<hello@acme.test>', 'from'), { name: 'Acme', address: 'hello@acme.test', domain: 'acme.test' });
  });

  it('reads a bracketed address without a name', () => {
    assert.deepEqual(parseMailbox('<hello@acme.test>', 'from'), { name: '', address: 'hello@acme.test', domain: 'acme.test' });
  });

  it('unquotes a quoted name, commas, escaped quotes and angle brackets inside it included', () => {
    assert.equal(parseMailbox('"Acme, Inc." <hello@acme.test>', 'from').name, 'Acme, Inc.');
    assert.equal(parseMailbox('"Zoë \\"Z\\" Doe" <z@x.io>', 'from').name, 'Zoë "Z" Doe');
    assert.deepEqual(parseMailbox('"Eve <eve@x.io>" <c@d.io>', 'from'), { name: 'Eve <eve@x.io>', address: 'c@d.io', domain: 'd.io' });
  });

  it('keeps unicode names and encoded-word text as written: the composer encodes them', () => {
    assert.equal(parseMailbox('Zoë 日本 <z@x.io>', 'from').name, 'Zoë 日本');
    assert.equal(parseMailbox('=?utf-8?q?x?= <a@b.co>', 'from').name, '=?utf-8?q?x?=');
  });

  it('takes every atom character RFC 5321 allows in the local part, and dots between atoms', () => {
    assert.equal(parseMailbox("a!#$%&'*+/=?^_`{|}~-@b.co", 'to').address, "a!#$%&'*+/=?^_`{|}~-@b.co");
    assert.equal(parseMailbox('first.last+tag@sub.example.org', 'to').address, 'first.last+tag@sub.example.org');
  });

  it('takes hyphens inside labels and digits anywhere in the domain', () => {
    assert.equal(parseMailbox('a@my-host.example-1.org', 'to').domain, 'my-host.example-1.org');
    assert.equal(parseMailbox('a@1.2', 'to').domain, '1.2');
  });
});

describe('unit: parseMailbox, the limits', () => {
  const label = (n: number) => 'x'.repeat(n);

  it('takes 64 characters before the @ and refuses 65', () => {
    assert.equal(parseMailbox(`${label(64)}@b.co`, 'to').address, `${label(64)}@b.co`);
    refuses(`${label(65)}@b.co`);
  });

  it('takes labels of 63 characters and refuses 64', () => {
    assert.equal(parseMailbox(`a@${label(63)}.co`, 'to').domain, `${label(63)}.co`);
    refuses(`a@${label(64)}.co`);
  });

  it('takes 254 characters in all and refuses 255', () => {
    const domain = (last: number) => `${label(63)}.${label(63)}.${label(63)}.${label(last)}`;
    const longest = `a@${domain(60)}`;
    assert.equal(longest.length, 254);
    assert.equal(parseMailbox(longest, 'to').address, longest);
    refuses(`a@${domain(61)}`);
  });
});

describe('unit: parseMailbox, what it refuses', () => {
  it('refuses CR, LF and NUL anywhere, before reading the address, naming the field', () => {
    for (const value of ['a@b.co\r\nBcc: victim@example.org', 'Acme\r\nBcc: victim@example.org <h@acme.test>', 'a@b.co\n', 'a@b.co\r', 'a@b.co\0', '\r\n']) {
      refuses(value, 'The `from` field must not contain line breaks.', 'from');
    }
  });

  it('refuses what is not one address', () => {
    for (const value of [
      '',
      '   ',
      'not-an-address',
      'a@b',
      '@example.org',
      'a@',
      'a@@example.org',
      'a b@example.org',
      'Name a@example.org',
      'a@example.org, b@example.org',
      'Eve <a@b.co>, Mallory <c@d.co>',
      'Group: a@example.org;',
      'One <a@example.org> <b@example.org>',
    ]) {
      refuses(value);
    }
  });

  it('refuses unbalanced or doubled angle brackets, and text after them', () => {
    for (const value of ['Name <a@example.org', 'Name a@example.org>', 'Eve <<a@b.co>>', 'Name <a@example.org> trailing', 'Name <a @example.org>'])
      refuses(value);
  });

  it('refuses quotes in an unquoted name', () => {
    refuses('Eve "x" <a@b.co>');
  });

  it('refuses dots at the ends of the local part or doubled, and quoted local parts', () => {
    for (const value of ['.a@b.co', 'a.@b.co', 'a..b@b.co', '"quoted local"@b.co']) refuses(value);
  });

  it('refuses labels that start or end with a hyphen, empty labels, and address literals', () => {
    for (const value of ['a@-example.org', 'a@example-.org', 'a@example..org', 'a@.example.org', 'a@example.org.', 'a@[127.0.0.1]']) refuses(value);
  });

  it('refuses non-ASCII in the local part or the domain (no SMTPUTF8 or IDN yet)', () => {
    for (const value of ['ünï@example.org', 'a@ünï.org', 'a@例え.jp', 'Zoë <zoë@x.io>']) refuses(value);
  });

  it('names the field it was given', () => {
    refuses('nope', INVALID('reply_to'), 'reply_to');
    refuses('nope', INVALID('cc'), 'cc');
  });
});
