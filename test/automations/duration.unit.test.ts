// Human-readable durations of delay and wait_for_event steps, read without a server: each unit
// and its spellings, combined parts with "and" or commas, and everything else refused (the
// 30-day limit is the step's, checked in step-config.unit.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_DURATION_MS, parseHumanDuration } from '../../src/automations/duration.js';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('unit: parseHumanDuration', () => {
  it("reads Resend's examples", () => {
    assert.equal(parseHumanDuration('30 minutes'), 30 * M);
    assert.equal(parseHumanDuration('1 hour'), H);
    assert.equal(parseHumanDuration('3 days'), 3 * D);
    assert.equal(parseHumanDuration('1 week'), 7 * D);
    assert.equal(parseHumanDuration('2 seconds'), 2 * S);
  });

  it('reads every spelling of every unit, with or without a space', () => {
    const cases: [string, number][] = [
      ['10ms', 10],
      ['10 millisecond', 10],
      ['10 milliseconds', 10],
      ['5s', 5 * S],
      ['5 sec', 5 * S],
      ['5 secs', 5 * S],
      ['5 second', 5 * S],
      ['5m', 5 * M],
      ['5 min', 5 * M],
      ['5 mins', 5 * M],
      ['5 minute', 5 * M],
      ['5h', 5 * H],
      ['5 hr', 5 * H],
      ['5 hrs', 5 * H],
      ['5 hours', 5 * H],
      ['5d', 5 * D],
      ['5 day', 5 * D],
      ['2w', 14 * D],
      ['2 wk', 14 * D],
      ['2 wks', 14 * D],
      ['2 weeks', 14 * D],
    ];
    for (const [text, ms] of cases) assert.equal(parseHumanDuration(text), ms, text);
  });

  it('ignores case and surrounding whitespace', () => {
    assert.equal(parseHumanDuration('  2 HOURS '), 2 * H);
    assert.equal(parseHumanDuration('1 Day'), D);
  });

  it('adds up parts joined by spaces, commas or "and"', () => {
    assert.equal(parseHumanDuration('1h 30m'), H + 30 * M);
    assert.equal(parseHumanDuration('1 hour and 30 minutes'), H + 30 * M);
    assert.equal(parseHumanDuration('1h, 30m'), H + 30 * M);
    assert.equal(parseHumanDuration('1d1h'), D + H);
    assert.equal(parseHumanDuration('1 day, 2 hours and 3 minutes'), D + 2 * H + 3 * M);
    assert.equal(parseHumanDuration('2 hours and 1 hour'), 3 * H, 'a repeated unit adds up');
  });

  it('reads decimal amounts and rounds to whole milliseconds', () => {
    assert.equal(parseHumanDuration('1.5h'), 90 * M);
    assert.equal(parseHumanDuration('0.5 days'), 12 * H);
    assert.equal(parseHumanDuration('1.5 ms'), 2);
  });

  it('refuses empty and blank text', () => {
    assert.equal(parseHumanDuration(''), undefined);
    assert.equal(parseHumanDuration('   '), undefined);
  });

  it('refuses a number without a unit, a unit without a number, and unknown units', () => {
    for (const text of ['1', '90', 'hour', '1 fortnight', '1 month', '1 year', '1 Stunde', '1 hourand']) {
      assert.equal(parseHumanDuration(text), undefined, text);
    }
  });

  it('refuses zero', () => {
    assert.equal(parseHumanDuration('0 days'), undefined);
    assert.equal(parseHumanDuration('0s 0m'), undefined);
  });

  it('refuses words other than "and" between or around the parts', () => {
    for (const text of ['in 1 hour', '1 hour ago', '1 hour or 30 minutes', '1 hour 30', 'soon', '1 and']) {
      assert.equal(parseHumanDuration(text), undefined, text);
    }
  });

  it('refuses signs, exponents, separators and malformed decimals', () => {
    for (const text of ['-1 hour', '+1 hour', '1e3 ms', '1_000 ms', '.5 hours', '1. hours', '1.5.5 hours', '1,5 hours']) {
      assert.equal(parseHumanDuration(text), undefined, text);
    }
  });

  it('refuses digits other than ASCII ones', () => {
    assert.equal(parseHumanDuration('٣ days'), undefined);
    assert.equal(parseHumanDuration('３ days'), undefined);
  });

  it('reads past 30 days: the limit is the caller’s, MAX_DURATION_MS', () => {
    assert.equal(MAX_DURATION_MS, 30 * D);
    assert.equal(parseHumanDuration('30 days'), MAX_DURATION_MS);
    assert.equal(parseHumanDuration('31 days'), 31 * D);
  });

  // Rounded first, then held to more than zero: under half a millisecond is no delay.
  it('refuses an amount that rounds to 0 ms, such as "0.4 ms" or "0.0001s"', () => {
    assert.equal(parseHumanDuration('0.4 ms'), undefined);
    assert.equal(parseHumanDuration('0.0001s'), undefined);
  });
});
