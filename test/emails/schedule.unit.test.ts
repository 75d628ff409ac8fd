// `scheduled_at` at a fixed "now" (Wednesday 14 January 2026, 10:00 UTC), the cases that
// scheduling-parse.test.ts leaves out: ISO 8601 spellings and their edges, the exact bounds
// of "in the future" and "at most 30 days", text around a time, the field named in errors,
// the default clock, and the state an accepted email starts in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SCHEDULE_AHEAD_MS } from '../../src/api/limits.js';
import { acceptedState, parseScheduledAt } from '../../src/emails/schedule.js';

const NOW = new Date('2026-01-14T10:00:00Z');
const at = (value: unknown, now = NOW) => parseScheduledAt(value, now).toISOString();
const HINT = 'an ISO 8601 date or a time such as "in 1 min", "tomorrow at 9am" or "Friday at 3pm ET"';
const refuses = (value: unknown, message: string, now = NOW, field?: string) =>
  assert.throws(
    () => parseScheduledAt(value, now, field),
    (err: any) => err.errorName === 'validation_error' && err.statusCode === 422 && err.message === message,
    JSON.stringify(value),
  );
const UNREADABLE = `The \`scheduled_at\` field must be ${HINT}.`;

describe('unit: parseScheduledAt, ISO 8601', () => {
  it('reads a lower-case t and z, an offset without a colon, and a space with seconds', () => {
    assert.equal(at('2026-01-20t11:52:01z'), '2026-01-20T11:52:01.000Z');
    assert.equal(at('2026-01-20T11:52:01+0200'), '2026-01-20T09:52:01.000Z');
    assert.equal(at('2026-01-20T11:52:01-14:00'), '2026-01-21T01:52:01.000Z');
    assert.equal(at('2026-01-20 11:52:30'), '2026-01-20T11:52:30.000Z');
  });

  it('reads up to nine fraction digits, keeping milliseconds', () => {
    assert.equal(at('2026-01-20T11:52:01.123456789Z'), '2026-01-20T11:52:01.123Z');
    assert.equal(at('2026-01-20T11:52:01.5Z'), '2026-01-20T11:52:01.500Z');
  });

  it('reads 24:00 as the start of the next day', () => {
    assert.equal(at('2026-01-31T24:00:00Z'), '2026-02-01T00:00:00.000Z');
  });

  it('refuses hours, minutes and offsets out of range, and the basic (compact) format', () => {
    for (const value of [
      '2026-01-20T25:00:00Z',
      '2026-01-20T11:60:00Z',
      '2026-01-20T11:52:01+99:99',
      '2026-13-01T10:00:00Z',
      '2026-01-32T10:00:00Z',
      '20260120T115201Z',
      '+002026-01-20T11:52:01Z',
      '2026-01-20T11',
    ]) {
      refuses(value, UNREADABLE);
    }
  });

  // Date.parse alone rolls days 29 to 31 over into the next month: "2026-02-30T10:00:00Z"
  // would be scheduled on 2 March.
  it('refuses a day the month does not have, such as 30 February or 31 April', () => {
    const february = new Date('2026-02-10T10:00:00Z');
    refuses('2026-02-30T10:00:00Z', UNREADABLE, february);
    refuses('2026-02-29T10:00:00Z', UNREADABLE, february); // 2026 is not a leap year
    refuses('2026-04-31T10:00:00Z', UNREADABLE, new Date('2026-04-10T00:00:00Z'));
  });

  // An hours-only offset ("+02") is ISO 8601, though Date.parse alone does not read it.
  it('reads an offset of hours only, such as +02', () => {
    assert.equal(at('2026-01-20T11:52:01+02'), '2026-01-20T09:52:01.000Z');
  });
});

describe('unit: parseScheduledAt, bounds', () => {
  it('refuses now itself and accepts one millisecond later', () => {
    refuses('2026-01-14T10:00:00Z', 'The `scheduled_at` time must be in the future.');
    refuses('in 0 minutes', 'The `scheduled_at` time must be in the future.');
    assert.equal(at('2026-01-14T10:00:00.001Z'), '2026-01-14T10:00:00.001Z');
  });

  it('accepts exactly 30 days ahead and refuses a millisecond more, in words too', () => {
    assert.equal(MAX_SCHEDULE_AHEAD_MS, 30 * 86_400_000);
    assert.equal(at('2026-02-13T10:00:00Z'), '2026-02-13T10:00:00.000Z');
    refuses('2026-02-13T10:00:00.001Z', 'The `scheduled_at` time must be at most 30 days in the future.');
    refuses('in 30 days and 1 minute', 'The `scheduled_at` time must be at most 30 days in the future.');
  });
});

describe('unit: parseScheduledAt, text', () => {
  it('trims whitespace and a trailing CRLF, and ignores case', () => {
    assert.equal(at(' \t in 5 minutes \n'), '2026-01-14T10:05:00.000Z');
    assert.equal(at('in 1 min\r\n'), '2026-01-14T10:01:00.000Z');
    assert.equal(at('IN 1 MIN'), '2026-01-14T10:01:00.000Z');
    assert.equal(at('2026-01-20T11:52:01Z '), '2026-01-20T11:52:01.000Z');
  });

  it('refuses a time followed by anything else: another line, punctuation, injected text', () => {
    for (const value of ['in 1 min\r\nBcc: victim@example.org', 'in 1 minute!', 'in 1 min; DROP TABLE emails', 'in 1 min please']) refuses(value, UNREADABLE);
  });

  it('refuses other languages and non-ASCII digits', () => {
    for (const value of ['demain à 9h', 'in ١ min', '１２:００']) refuses(value, UNREADABLE);
  });

  it('reads "tomorrow" as this time tomorrow', () => {
    assert.equal(at('tomorrow'), '2026-01-15T10:00:00.000Z');
  });
});

describe('unit: parseScheduledAt, types and field names', () => {
  it('refuses every non-string, a Date object included', () => {
    const message = `The \`scheduled_at\` field must be a string: ${HINT}.`;
    for (const value of [null, undefined, 1768500000000, {}, ['in 1 min'], new Date('2026-01-20T00:00:00Z'), true]) refuses(value, message);
  });

  it('names the field it was given in every message', () => {
    refuses('whenever', `The \`emails[3].scheduled_at\` field must be ${HINT}.`, NOW, 'emails[3].scheduled_at');
    refuses(5, `The \`scheduled_at\` field must be a string: ${HINT}.`, NOW, 'scheduled_at');
    refuses('yesterday', 'The `broadcast.scheduled_at` time must be in the future.', NOW, 'broadcast.scheduled_at');
    refuses('in 40 days', 'The `broadcast.scheduled_at` time must be at most 30 days in the future.', NOW, 'broadcast.scheduled_at');
  });

  it('reads relative times against the clock when no "now" is given', () => {
    const before = Date.now();
    const ahead = parseScheduledAt('in 1 hour').getTime();
    const after = Date.now();
    // chrono may drop the milliseconds of "now": allow up to one second below.
    assert.ok(ahead >= before + 3_600_000 - 1000 && ahead <= after + 3_600_000, `${ahead - before} ms ahead`);
    assert.throws(() => parseScheduledAt(new Date(Date.now() - 60_000).toISOString()), /must be in the future/);
  });
});

describe('unit: acceptedState', () => {
  it('starts an email without a time as sent, its deliveries queued now', () => {
    assert.deepEqual(acceptedState(null), { event: 'email.sent', lastEvent: 'sent', deliveryStatus: 'queued', dueAt: null });
  });

  it('starts a scheduled email as scheduled, its deliveries due at its time', () => {
    const when = new Date('2026-01-20T09:00:00Z');
    assert.deepEqual(acceptedState(when), { event: 'email.scheduled', lastEvent: 'scheduled', deliveryStatus: 'scheduled', dueAt: when });
  });
});
