// The rate limit counts in fixed one-second windows of the clock (src/rate-limit). A burst that
// must land in one window can straddle two on a loaded machine; rather than hoping it fits,
// a burst that ran past its window is thrown away and tried again in the next one.

/**
 * Runs `burst` from the start of a one-second window until one run begins and ends within the
 * same window, and returns that run's result; fails after `tries` runs that did not fit.
 */
export async function inOneWindow<T>(burst: () => Promise<T>, tries = 10): Promise<T> {
  const spans: number[] = [];
  for (let i = 0; i < tries; i++) {
    // Waiting for the clock, not for a state: the next window starts when the second turns.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const started = Date.now();
    const result = await burst();
    if (Math.floor(Date.now() / 1000) === Math.floor(started / 1000)) return result;
    spans.push(Date.now() - started);
  }
  throw new Error(`no burst fitted in one 1-second window in ${tries} tries (they took ${spans.join(', ')} ms)`);
}
