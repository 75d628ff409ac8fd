// Polling instead of sleeping: the suite waits exactly as long as the server needs.

/**
 * Polls `check` every 50 ms until it returns something other than undefined/false. An error
 * thrown by `check` counts as "not yet"; the last one is reported if time runs out.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
