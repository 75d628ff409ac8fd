// Traffic shaping without a server, on a clock the test moves: a limited destination lets a
// burst go and gives the rest slots at its rate (transactional mail ahead of broadcast mail);
// a throttling reply halves the rate once per burst of replies, from the rate just observed
// when there was no limit; a quiet minute starts the recovery, a fifth at a time, back to the
// limit or to no limit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isThrottleReply, type Slot, TrafficShaper } from '../../src/delivery/shaping.js';

const limits = (messagesPerMinute: number | null) => ({ connections: 5, messagesPerConnection: 50, messagesPerMinute });

function clocked() {
  let now = 1_000_000;
  return { shaper: new TrafficShaper(() => now), advance: (ms: number) => (now += ms), now: () => now };
}

const gone = (slots: Slot[]) => slots.filter((s) => s.go).length;

describe('unit: traffic shaping', () => {
  it('knows a throttling reply from a refusal about the message or the recipient', () => {
    for (const reply of [
      '421 4.7.0 Try again later, closing connection.',
      '421 4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.',
      '451 4.7.0 Temporary rate limit exceeded',
      '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
      '421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints',
      '452 4.5.3 Too many connections from your host',
      '451 RL0001 throttled',
    ]) {
      assert.ok(isThrottleReply(reply), reply);
    }
    for (const reply of [
      '452 4.2.2 The email account that you tried to reach is over quota',
      '451 4.3.0 Mail server temporarily rejected message',
      '550 5.7.1 Rate limited (a 5xx is no throttle)',
    ]) {
      assert.ok(!isThrottleReply(reply), reply);
    }
  });

  it('sends without a limit until asked to slow down', () => {
    const { shaper } = clocked();
    assert.equal(gone(Array.from({ length: 1000 }, () => shaper.take('gmail', limits(null), 1, 0))), 1000);
    assert.deepEqual(shaper.states()[0]!.ratePerMinute, null);
    assert.equal(shaper.states()[0]!.sentLastMinute, 1000);
  });

  it('lets a burst of two seconds go, then gives each job the next slot at the rate', () => {
    const { shaper, now } = clocked();
    const slots = Array.from({ length: 6 }, () => shaper.take('acme', limits(60), 1, 0));
    assert.equal(gone(slots), 2, 'two seconds at 60 a minute');
    const waits = slots.filter((s) => !s.go).map((s) => (s as { until: Date }).until.getTime() - now());
    assert.deepEqual(waits, [1000, 2000, 3000, 4000]);
    assert.match((slots[2] as { reason: string }).reason, /^451 4\.4\.5 Waiting for acme's sending rate: 60 messages a minute/);
  });

  it('puts transactional mail ahead of broadcast mail', () => {
    const { shaper, advance, now } = clocked();
    shaper.take('acme', limits(60), 2, 1); // the burst, spent on a broadcast
    const broadcast = Array.from({ length: 3 }, () => shaper.take('acme', limits(60), 1, 1));
    const transactional = shaper.take('acme', limits(60), 1, 0);
    assert.ok(!transactional.go);
    assert.ok((transactional as { until: Date }).until.getTime() - now() <= 1000, 'the transactional line is its own');
    assert.ok(broadcast.every((s) => !s.go));
    advance(1000);
    assert.ok(!shaper.take('acme', limits(60), 1, 1).go, 'a token left while transactional mail waits goes to it');
    assert.ok(shaper.take('acme', limits(60), 1, 0).go);
  });

  it('halves the rate once per burst of throttling replies, and recovers after a quiet minute, a fifth at a time', () => {
    const { shaper, advance } = clocked();
    const rate = () => shaper.states()[0]!.ratePerMinute;
    shaper.take('acme', limits(600), 1, 0);
    assert.ok(shaper.throttled('acme', limits(600), '421 4.7.0 slow down'));
    assert.equal(rate(), 300);
    assert.ok(!shaper.throttled('acme', limits(600), '421 4.7.0 slow down'), 'the same burst');
    advance(11_000);
    assert.ok(shaper.throttled('acme', limits(600), '421 4.7.0 slow down'));
    assert.equal(rate(), 150);
    advance(59_000);
    assert.deepEqual(shaper.tick(), [], 'not quiet for a minute yet');
    advance(1_000);
    assert.deepEqual(shaper.tick(), ['acme']);
    assert.equal(rate(), 180);
    const seen = [180];
    while (rate() !== 600 && seen.length < 20) {
      advance(60_000);
      shaper.tick();
      seen.push(rate()!);
    }
    assert.deepEqual(seen, [180, 216, 260, 312, 375, 450, 540, 600]);
    assert.match(shaper.states()[0]!.lastSignal!.reply, /^421/, 'the last signal stays visible');
  });

  it('without a limit, halves what it just sent, then recovers to twice that and to no limit', () => {
    const { shaper, advance } = clocked();
    for (let i = 0; i < 400; i++) shaper.take('gmail', limits(null), 1, 0);
    shaper.throttled('gmail', limits(null), '421 4.7.28 unusual rate');
    assert.equal(shaper.states()[0]!.ratePerMinute, 200);
    for (let i = 0; i < 10; i++) {
      advance(60_000);
      shaper.tick();
    }
    assert.equal(shaper.states()[0]!.ratePerMinute, null);
  });

  it('never slows below six a minute', () => {
    const { shaper, advance } = clocked();
    for (let i = 0; i < 10; i++) {
      shaper.throttled('acme', limits(20), '421 busy');
      advance(11_000);
    }
    assert.equal(shaper.states()[0]!.ratePerMinute, 6);
  });
});
