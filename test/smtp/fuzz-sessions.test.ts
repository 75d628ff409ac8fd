// Generated SMTP sessions (test/smtp/fuzz/): random commands, orders and bytes on the
// STARTTLS and the implicit-TLS port, with and without TLS and AUTH, submission and inbound
// mail. Every reply is well-formed and fits what it answers, none takes over 5 s, the server
// never hangs up without a 221 or 421; afterwards every acknowledged message is stored and
// delivered once, and a nodemailer submission still goes through. A fixed seed and a bounded
// count here; `npx tsx bench/fuzz-smtp.ts --runs N --seed S` runs longer. A failure names the
// round; FUZZ_SHRINK=1 has fast-check shrink it to a smallest one, FUZZ_TRACE=<file> prints the
// failing sessions' transcripts and appends their plans to the file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SmtpFuzzer } from './fuzz/smtp-fuzzer.js';

const SEED = 17;
const ROUNDS = Number(process.env.FUZZ_SMTP_ROUNDS ?? 120);

describe('SMTP: fuzzed sessions', () => {
  let fuzzer: SmtpFuzzer;
  before(async () => {
    fuzzer = await SmtpFuzzer.start();
  });
  after(() => fuzzer.t.stop());

  it(`answers ${ROUNDS} rounds of generated sessions well, each reply within 5 s`, async () => {
    // Messages up to 700 KB: the bench sends 3 MB too, whose answer may near 5 s on a loaded machine.
    await fuzzer.run({ numRuns: ROUNDS, seed: SEED, timeouts: true, largestKb: 700 });
  });

  it('stores and delivers once every message it acknowledged, and nothing else', async () => {
    const { figures } = fuzzer;
    // The generated sessions reached every set-up and got mail through both ways.
    assert.equal(figures.kinds.size, 8, JSON.stringify([...figures.kinds]));
    assert.ok(figures.submissions.size > 0 && figures.inbound > 0, `${figures.submissions.size} submissions, ${figures.inbound} inbound`);
    await fuzzer.checkAftermath();
  });

  it('still takes a nodemailer submission over STARTTLS with AUTH, and delivers it', async () => {
    await fuzzer.checkStillServes();
  });
});
