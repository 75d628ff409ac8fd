// MTA-STS as text (RFC 8461): the TXT record that announces a policy (§3.1), the policy file
// (§3.2) and MX matching (§4.1), each case one the RFC's grammar or prose decides, and the
// error a user reads when a domain's policy cannot be used.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mxMatchesPolicy, parseStsPolicy, parseStsRecord } from '../../src/tls-policy/mta-sts.js';

describe('tls-policy: the _mta-sts TXT record (RFC 8461 §3.1)', () => {
  it('reads the id, with or without spaces around the semicolons and a trailing one', () => {
    assert.deepEqual(parseStsRecord(['v=STSv1; id=20160831085700Z;']), { id: '20160831085700Z' });
    assert.deepEqual(parseStsRecord(['v=STSv1;id=abc']), { id: 'abc' });
    assert.deepEqual(parseStsRecord(['v=STSv1 ;\tid=abc ; ']), { id: 'abc' });
  });

  it('passes over other TXT records at the name and ignores extension fields', () => {
    assert.deepEqual(parseStsRecord(['v=spf1 -all', 'v=STSv1; ext=https://x.example; id=abc; other-ext=1']), { id: 'abc' });
  });

  it('is no policy when no record begins with v=STSv1;', () => {
    assert.equal(parseStsRecord([]), null);
    assert.equal(parseStsRecord(['v=spf1 -all']), null);
    // Other versions and a version with no fields are discarded like any other record.
    assert.equal(parseStsRecord(['v=STSv10; id=abc', 'v=STSv1', 'id=abc; v=STSv1', 'V=STSV1; id=abc']), null);
    assert.deepEqual(parseStsRecord(['v=STSv2; id=new', 'v=STSv1; id=old']), { id: 'old' });
  });

  it('is unusable when more than one record announces a policy, valid or not', () => {
    const result = parseStsRecord(['v=STSv1; id=a', 'v=STSv1; id=b']);
    assert.deepEqual(result, { error: '2 TXT records start with v=STSv1; exactly one may, so none is used' });
  });

  it('names what is wrong with the one record', () => {
    assert.deepEqual(parseStsRecord(['v=STSv1;']), { error: 'the v=STSv1 record has no id' });
    assert.deepEqual(parseStsRecord(['v=STSv1; ID=abc']), { error: 'the v=STSv1 record has no id' });
    assert.deepEqual(parseStsRecord(['v=STSv1; id=abc-def']), { error: 'the v=STSv1 record\'s id "abc-def" is not 1 to 32 letters and digits' });
    assert.deepEqual(parseStsRecord([`v=STSv1; id=${'a'.repeat(33)}`]), {
      error: `the v=STSv1 record's id "${'a'.repeat(33)}" is not 1 to 32 letters and digits`,
    });
    assert.deepEqual(parseStsRecord(['v=STSv1; id']), { error: 'the v=STSv1 record\'s field "id" is not key=value' });
    assert.deepEqual(parseStsRecord(['v=STSv1; id=a b']), { error: 'the v=STSv1 record\'s field "id=a b" is not key=value' });
  });

  it('takes the first id when the field is repeated', () => {
    assert.deepEqual(parseStsRecord(['v=STSv1; id=first; id=second']), { id: 'first' });
    assert.deepEqual(parseStsRecord(['v=STSv1; id=first; id=not-valid']), { id: 'first' });
  });
});

describe('tls-policy: the policy file (RFC 8461 §3.2)', () => {
  const policy = (...lines: string[]) => `${lines.join('\r\n')}\r\n`;

  it('reads an enforce policy with several mx patterns, CRLF-separated', () => {
    const text = policy('version: STSv1', 'mode: enforce', 'mx: mail.example.com', 'mx: *.example.net', 'mx: backupmx.example.com', 'max_age: 604800');
    assert.deepEqual(parseStsPolicy(text), {
      ok: true,
      policy: { mode: 'enforce', mx: ['mail.example.com', '*.example.net', 'backupmx.example.com'], maxAge: 604800 },
    });
  });

  it('reads LF-separated lines, any key order, without a final line break', () => {
    assert.deepEqual(parseStsPolicy('max_age: 86400\nmx: MX.Example.COM.\nmode: testing\nversion: STSv1'), {
      ok: true,
      policy: { mode: 'testing', mx: ['mx.example.com'], maxAge: 86400 },
    });
  });

  it('allows no mx in mode none', () => {
    assert.deepEqual(parseStsPolicy(policy('version: STSv1', 'mode: none', 'max_age: 0')), { ok: true, policy: { mode: 'none', mx: [], maxAge: 0 } });
  });

  it('ignores unknown keys and blank lines; of a repeated key other than mx, the first counts', () => {
    const text = policy('version: STSv1', '', 'mode: testing', 'mode: enforce', 'x-comment: hello: world', 'mx: a.example', 'max_age:86400', 'max_age: 1');
    assert.deepEqual(parseStsPolicy(text), { ok: true, policy: { mode: 'testing', mx: ['a.example'], maxAge: 86400 } });
  });

  it('names the field that is missing', () => {
    const without = (key: string) =>
      parseStsPolicy(policy(...['version: STSv1', 'mode: enforce', 'mx: mx.example.com', 'max_age: 86400'].filter((line) => !line.startsWith(`${key}:`))));
    assert.deepEqual(without('version'), { ok: false, error: 'policy has no version' });
    assert.deepEqual(without('mode'), { ok: false, error: 'policy has no mode' });
    assert.deepEqual(without('max_age'), { ok: false, error: 'policy has no max_age' });
    assert.deepEqual(without('mx'), { ok: false, error: 'policy has no mx (one is required unless the mode is none)' });
    assert.deepEqual(parseStsPolicy(''), { ok: false, error: 'policy has no version' });
  });

  it('says when a key is there in another case, since keys are case-sensitive', () => {
    assert.deepEqual(parseStsPolicy(policy('version: STSv1', 'Mode: enforce', 'mx: mx.example.com', 'max_age: 86400')), {
      ok: false,
      error: 'policy has no mode (found "Mode:"; keys are case-sensitive)',
    });
  });

  it('names a bad version, mode, max_age or mx', () => {
    const base = { version: 'STSv1', mode: 'enforce', mx: 'mx.example.com', max_age: '86400' };
    const withField = (key: keyof typeof base, value: string) =>
      parseStsPolicy(policy(...Object.entries({ ...base, [key]: value }).map(([k, v]) => `${k}: ${v}`)));
    assert.deepEqual(withField('version', 'STSv2'), { ok: false, error: 'policy version "STSv2" is not STSv1' });
    assert.deepEqual(withField('mode', 'Enforce'), { ok: false, error: 'policy mode "Enforce" is not enforce, testing or none' });
    assert.deepEqual(withField('max_age', 'one week'), { ok: false, error: 'policy max_age "one week" is not a whole number of seconds' });
    assert.deepEqual(withField('max_age', '-1'), { ok: false, error: 'policy max_age "-1" is not a whole number of seconds' });
    assert.deepEqual(withField('max_age', '86400.5'), { ok: false, error: 'policy max_age "86400.5" is not a whole number of seconds' });
    assert.deepEqual(withField('max_age', '31557601'), { ok: false, error: 'policy max_age 31557601 is over 31557600 (one year)' });
    assert.deepEqual(withField('max_age', '31557600'), { ok: true, policy: { mode: 'enforce', mx: ['mx.example.com'], maxAge: 31557600 } });
    assert.deepEqual(withField('mx', 'mx*.example.com'), { ok: false, error: 'policy mx "mx*.example.com" is not a host name or *.domain pattern' });
    assert.deepEqual(withField('mx', 'a..example.com'), { ok: false, error: 'policy mx "a..example.com" is not a host name or *.domain pattern' });
  });

  it('names a line that is not key: value, quoted safely', () => {
    assert.deepEqual(parseStsPolicy('version: STSv1\n<html>\n'), { ok: false, error: 'policy line 2 is not "key: value": "<html>"' });
    assert.deepEqual(parseStsPolicy('version: STSv1\nmode: enforce\r\r\n'), { ok: false, error: 'policy line 2 is not "key: value": "mode: enforce\\r"' });
  });
});

describe('tls-policy: MX host matching (RFC 8461 §4.1)', () => {
  it('matches a host name exactly, case and a trailing dot aside', () => {
    assert.equal(mxMatchesPolicy('mx.example.com', ['mx.example.com']), true);
    assert.equal(mxMatchesPolicy('MX.Example.com.', ['mx.example.COM']), true);
    assert.equal(mxMatchesPolicy('mx.example.com', ['mx.example.com.']), true);
    assert.equal(mxMatchesPolicy('mx2.example.com', ['mx.example.com']), false);
    assert.equal(mxMatchesPolicy('mx.example.com', []), false);
    assert.equal(mxMatchesPolicy('', ['mx.example.com']), false);
  });

  it('lets a wildcard stand for exactly one leftmost label', () => {
    assert.equal(mxMatchesPolicy('mx1.example.com', ['*.example.com']), true);
    assert.equal(mxMatchesPolicy('MX1.EXAMPLE.COM.', ['*.Example.com']), true);
    assert.equal(mxMatchesPolicy('a.b.example.com', ['*.example.com']), false);
    assert.equal(mxMatchesPolicy('example.com', ['*.example.com']), false);
    assert.equal(mxMatchesPolicy('.example.com', ['*.example.com']), false);
    assert.equal(mxMatchesPolicy('mx1.badexample.com', ['*.example.com']), false);
  });

  it('matches when any pattern does', () => {
    assert.equal(mxMatchesPolicy('b.example.net', ['mx.example.com', '*.example.net']), true);
  });
});
