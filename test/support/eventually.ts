// Polling instead of sleeping: the suite waits exactly as long as the server needs, and never
// without a bound: a wait that runs out fails with what it was waiting for.

/**
 * Polls `check` every 50 ms until it returns something other than undefined/false. An error
 * thrown by `check` counts as "not yet"; the last one is reported if time runs out. A `check`
 * that never settles is abandoned at the deadline too.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await within(check(), Math.max(deadline - Date.now(), 1_000), `one check of ${what}`);
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `promise`, or an error naming `what` once `timeoutMs` has passed without it settling. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes a test's server (http, net, SMTP): resolves once it has closed, fails naming it if a
 * connection still holds it open after `timeoutMs`.
 */
export async function closeServer(server: { close(callback: () => void): unknown }, timeoutMs = 10_000): Promise<void> {
  await within(new Promise<void>((resolve) => server.close(() => resolve())), timeoutMs, 'a test server to close');
}
