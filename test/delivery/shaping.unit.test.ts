// Traffic shaping without a server, on a clock the test moves: a limited destination lets a
// burst go and gives the rest slots at its rate (transactional mail ahead of broadcast mail),
// and no more jobs than its connections carry wait to send;
// a throttling reply cuts the rate to 85 % of what the destination accepted over the last
// window, never compounding within one burst of replies; while the receiver's window is still
// full nothing goes; a quiet probe period (a sixth of the window) moves the rate back up: fast
// to near the ceiling, in small steps there, in growing steps past it, back to the limit or to
// no limit. Against a model of a sliding-minute receiver and the worker's give-back loop, the
// rate settles near the receiver's limit with few refusals.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isThrottleReply, type Slot, TrafficShaper } from '../../src/delivery/shaping.js';

const limits = (messagesPerMinute: number | null) => ({ connections: 5, messagesPerConnection: 50, messagesPerMinute });

function clocked() {
  let now = 1_000_000;
  return { shaper: new TrafficShaper(() => now), advance: (ms: number) => (now += ms), now: () => now };
}

const gone = (slots: Slot[]) => slots.filter((s) => s.go).length;

/** Asks for a slot for one message, and sends it at once when let through, as an attempt does. */
function go(shaper: TrafficShaper, destination: string, lim: ReturnType<typeof limits>): Slot {
  const slot = shaper.take(destination, lim, 1, 0);
  if (slot.go) shaper.sending(destination, lim, 1);
  return slot;
}

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
    assert.equal(gone(Array.from({ length: 1000 }, () => go(shaper, 'gmail', limits(null)))), 1000);
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

  it('lets at most two jobs a connection through that have not started sending, so they cannot pile up behind the connections', () => {
    const { shaper, advance } = clocked();
    const lim = { connections: 2, messagesPerConnection: 50, messagesPerMinute: 6000 };
    const slots = Array.from({ length: 6 }, () => shaper.take('acme', lim, 1, 0));
    assert.equal(gone(slots), 4, 'two connections, two jobs each');
    shaper.sending('acme', lim, 1);
    shaper.sending('acme', lim, 0); // held by warm-up after all: it frees its place too
    assert.equal(gone(Array.from({ length: 3 }, () => shaper.take('acme', lim, 1, 0))), 2);
    advance(10_000); // the four let through never said they were sending (no connection): they stop counting
    assert.ok(shaper.take('acme', lim, 1, 0).go);
    assert.equal(shaper.states()[0]!.sentLastMinute, 1, 'a message counts once it is sent');
  });

  it('cuts the rate to 85 % of what the destination accepted over the last minute, not from the declared limit, once per burst of replies', () => {
    const { shaper, advance } = clocked();
    const rate = () => shaper.states()[0]!.ratePerMinute;
    // 200 messages in 20 s at the declared 600 a minute.
    assert.equal(gone(sendEvery(shaper, advance, 100, 200)), 200);
    assert.ok(shaper.throttled('acme', limits(600), '421 4.7.0 rate limited'));
    assert.equal(rate(), Math.floor(0.85 * 199), 'the refused message is taken out of the count');
    // Four more refusals on parallel connections: each takes its message out, none compounds the cut.
    for (let i = 0; i < 4; i++) shaper.throttled('acme', limits(600), '421 4.7.0 rate limited');
    assert.equal(rate(), Math.floor(0.85 * 195));
    assert.equal(shaper.states()[0]!.sentLastMinute, 195);
    assert.equal(shaper.states()[0]!.throttled, true);
  });

  it('sends nothing while the last minute holds what the receiver took, then as its window makes room', () => {
    const { shaper, advance, now } = clocked();
    const start = now();
    sendEvery(shaper, advance, 100, 201);
    shaper.throttled('acme', limits(600), '421 4.7.0 rate limited'); // the 201st: 200 taken
    assert.equal(shaper.states()[0]!.ratePerMinute, 170);
    const held = shaper.take('acme', limits(600), 1, 0);
    assert.ok(!held.go);
    assert.equal((held as { until: Date }).until.getTime(), start + 60_000, 'room when the first of the 200 leaves the minute');
    advance(20_000);
    assert.deepEqual(shaper.tick(), [], 'no step up while the window holds the mail back');
    assert.ok(!shaper.take('acme', limits(600), 1, 0).go);
    advance(start + 60_000 - now());
    assert.ok(go(shaper, 'acme', limits(600)).go, 'goes as the receiver’s window makes room');
  });

  it('steps back up after quiet probe periods: fast to near the ceiling, small steps there, growing steps past it, back to the limit', () => {
    const { shaper, advance } = clocked();
    const rate = () => shaper.states()[0]!.ratePerMinute!;
    sendEvery(shaper, advance, 100, 201);
    shaper.throttled('acme', limits(600), '421 4.7.0 rate limited');
    // Mail keeps coming, and goes as the rate and the window let it; the receiver takes it all now.
    const seen = [rate()];
    for (let i = 0; i < 600 && shaper.states()[0]!.throttled; i++) {
      sendEvery(shaper, advance, 100, 10);
      shaper.tick();
      if (rate() !== seen.at(-1)) seen.push(rate());
    }
    // 170 (85 % of the 200 a minute taken) until the window has room; then 95 % of that ceiling in one step,
    // steps of 2.5 % of it near it, and once the window is past it without a refusal, each step twice the last.
    assert.deepEqual(seen.slice(0, 4), [170, 190, 195, 200], seen.join(' '));
    assert.equal(rate(), 600, `back at the limit: ${seen.join(' ')}`);
    assert.ok(seen.length < 20, `within a few minutes: ${seen.join(' ')}`);
    const steps = seen.slice(1).map((r, i) => r - seen[i]!);
    assert.ok(steps.at(-2)! >= 4 * steps[1]!, `steps grow past the ceiling: ${seen.join(' ')}`);
    assert.match(shaper.states()[0]!.lastSignal!.reply, /^421/, 'the last signal stays visible');
  });

  it('without a limit, cuts from what it sent, then recovers to twice that and to no limit', () => {
    const { shaper, advance } = clocked();
    for (let i = 0; i < 400; i++) go(shaper, 'gmail', limits(null));
    shaper.throttled('gmail', limits(null), '421 4.7.28 unusual rate');
    assert.equal(shaper.states()[0]!.ratePerMinute, Math.floor(0.85 * 399));
    for (let i = 0; i < 60; i++) {
      advance(10_000);
      shaper.tick();
    }
    assert.equal(shaper.states()[0]!.ratePerMinute, null);
  });

  it('settles near the limit of a sliding-minute receiver it was never told, with few refusals (the worker’s give-back loop, modelled)', () => {
    // The receiver takes 200 a sliding minute and answers 421 above it; the provider is declared at 600.
    const { minutes } = simulate({ declared: 600, receiverPerMinute: 200, minutes: 8 });
    const settled = minutes.slice(2);
    const perMinute = settled.reduce((n, m) => n + m.accepted, 0) / settled.length;
    const refused = settled.reduce((n, m) => n + m.refused, 0);
    const attempts = settled.reduce((n, m) => n + m.accepted + m.refused, 0);
    const shown = JSON.stringify(minutes);
    assert.ok(perMinute >= 0.9 * 200, `settled at ${perMinute} a minute: ${shown}`);
    assert.ok(refused / attempts < 0.02, `${refused} of ${attempts} refused after settling: ${shown}`);
    assert.ok(minutes[1]!.accepted >= 0.8 * 200, `the second minute: ${shown}`);
  });

  it('never slows below six a minute', () => {
    const { shaper, advance } = clocked();
    for (let i = 0; i < 10; i++) {
      go(shaper, 'acme', limits(20));
      shaper.throttled('acme', limits(20), '421 busy');
      advance(11_000);
    }
    assert.equal(shaper.states()[0]!.ratePerMinute, 6);
  });
});

/** `count` messages to acme (600 a minute), `everyMs` apart. */
function sendEvery(shaper: TrafficShaper, advance: (ms: number) => number, everyMs: number, count: number): Slot[] {
  return Array.from({ length: count }, () => {
    const slot = go(shaper, 'acme', limits(600));
    advance(everyMs);
    return slot;
  });
}

/**
 * The worker's loop against one receiver, on a simulated clock: a backlog of rows due now, claimed
 * every 100 ms; a row the shaper holds back is given back due at its slot; a row that goes reaches
 * the receiver 20 ms later, which answers 421 when its sliding minute already holds
 * `receiverPerMinute` messages (the row is due again a minute later). Per minute: accepted and refused.
 */
function simulate(options: { declared: number; receiverPerMinute: number; minutes: number }) {
  let now = 0;
  const shaper = new TrafficShaper(() => now);
  const lim = limits(options.declared);
  const due: number[] = Array.from({ length: options.receiverPerMinute * (options.minutes + 1) }, () => 0);
  const received: number[] = [];
  const minutes = Array.from({ length: options.minutes }, () => ({ accepted: 0, refused: 0 }));
  for (; now < options.minutes * 60_000; now += 100) {
    for (let i = 0; i < due.length; i++) {
      if (due[i]! > now) continue;
      const slot = go(shaper, 'acme', lim);
      if (!slot.go) {
        due[i] = slot.until.getTime();
        continue;
      }
      const at = now + 20;
      while (received.length > 0 && received[0]! <= at - 60_000) received.shift();
      const minute = minutes[Math.floor(at / 60_000)]!;
      if (received.length >= options.receiverPerMinute) {
        minute.refused++;
        shaper.throttled('acme', lim, '421 4.7.0 rate limited');
        due[i] = now + 60_000;
      } else {
        minute.accepted++;
        received.push(at);
        due[i] = Number.POSITIVE_INFINITY;
      }
    }
    if (now % 5_000 === 0) shaper.tick();
  }
  return { minutes };
}
