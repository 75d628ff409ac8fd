// The signed message Postline stored for an email. API mail is composed and signed by the
// delivery worker just before its first attempt (src/emails/compose-deferred.ts) and stored
// with that attempt's outcome, so a test waits for it rather than reading it at accept.
import { eventually } from './eventually.js';
import type { TestPostline } from './postline.js';

export async function storedMessage(t: Pick<TestPostline, 'sql'>, emailId: string, timeoutMs = 15_000): Promise<Buffer> {
  return eventually(
    async () => (await t.sql('SELECT mime FROM emails WHERE id = $1 AND mime IS NOT NULL', [emailId]))[0]?.mime as Buffer | undefined,
    timeoutMs,
    `the stored message of ${emailId}`,
  );
}
