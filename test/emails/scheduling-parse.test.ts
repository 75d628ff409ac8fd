// Reading `scheduled_at` (src/emails/schedule.ts) at a fixed "now", so that natural-language
// times have exact expected values. Wednesday 14 January 2026, 10:00 UTC.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseScheduledAt } from '../../src/emails/schedule.js';

const NOW = new Date('2026-01-14T10:00:00Z');
const at = (value: unknown, now = NOW) => parseScheduledAt(value, now).toISOString();
const refuses = (value: unknown, message: RegExp, now = NOW) =>
  assert.throws(
    () => parseScheduledAt(value, now),
    (err: any) => err.errorName === 'validation_error' && err.statusCode === 422 && message.test(err.message),
  );

describe('reading scheduled_at', () => {
  it('reads ISO 8601, with a zone, an offset or none (UTC)', () => {
    assert.equal(at('2026-01-20T11:52:01.858Z'), '2026-01-20T11:52:01.858Z');
    assert.equal(at('2026-01-20T11:52:01+02:00'), '2026-01-20T09:52:01.000Z');
    assert.equal(at('2026-01-20T11:52:01'), '2026-01-20T11:52:01.000Z');
    assert.equal(at('2026-01-20 11:52'), '2026-01-20T11:52:00.000Z');
  });

  it('reads natural language relative to now, in UTC unless a zone is named', () => {
    assert.equal(at('in 1 min'), '2026-01-14T10:01:00.000Z');
    assert.equal(at('in 1 hour'), '2026-01-14T11:00:00.000Z');
    assert.equal(at('tomorrow at 9am'), '2026-01-15T09:00:00.000Z');
    assert.equal(at('Friday at 3pm ET'), '2026-01-16T20:00:00.000Z'); // EST in January
    assert.equal(at('Friday at 3pm ET', new Date('2026-07-15T10:00:00Z')), '2026-07-17T19:00:00.000Z'); // EDT in July
    assert.equal(at('tomorrow 9am PST'), '2026-01-15T17:00:00.000Z');
    assert.equal(at('9am'), '2026-01-15T09:00:00.000Z', 'a time already past today is tomorrow');
    assert.equal(at('  in 2 days  '), '2026-01-16T10:00:00.000Z');
  });

  it('allows up to 30 days ahead and no more', () => {
    assert.equal(at('in 30 days'), '2026-02-13T10:00:00.000Z');
    refuses('in 31 days', /at most 30 days in the future/);
    refuses('2026-02-13T10:00:00.001Z', /at most 30 days/);
  });

  it('refuses text longer than 256 characters before chrono reads it (found by the route fuzzer: 50 MB held the event loop for seconds)', () => {
    refuses(`tomorrow at 9am ${' '.repeat(241)}`, /^The `scheduled_at` field must be at most 256 characters\.$/);
    refuses('tomorrow at 9am '.repeat(1_000_000), /at most 256 characters/);
    assert.equal(at(`${'  '.repeat(120)}tomorrow at 9am`), '2026-01-15T09:00:00.000Z', '255 characters are read');
  });

  it('refuses the past, unparseable text, half-understood text and non-strings', () => {
    refuses('2026-01-14T09:59:59Z', /must be in the future/);
    refuses('yesterday', /must be in the future/);
    refuses('now', /must be in the future/);
    refuses('whenever', /must be an ISO 8601 date or a time such as "in 1 min"/);
    refuses('', /must be an ISO 8601 date/);
    refuses('call me at noon tomorrow', /must be an ISO 8601 date/);
    refuses('tomorrow at 9am Europe/Paris', /must be an ISO 8601 date/);
    refuses('2026-13-40T10:00:00Z', /must be an ISO 8601 date/);
    refuses(1768500000000, /must be a string/);
  });
});
