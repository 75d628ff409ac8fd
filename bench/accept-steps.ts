// CPU cost per email of each step of the accept pipeline, in one thread, no HTTP, no database:
// the ceiling those steps put on emails/s per core, to read next to bench/accept.ts.
// Uses the pipeline's own step functions on the bench's ~2 KB html email.
//
//   npx tsx bench/accept-steps.ts [--emails 2000]
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { composeMessage, textPart } from '../src/emails/compose.js';
import { signMessage } from '../src/message/dkim.js';
import { parseEmailRequest } from '../src/emails/email-request.js';
import { redact } from '../src/logs/request-logs.js';
import type { SendingDomain } from '../src/domains/sending-domain.js';
import { email } from './support/emails.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({ options: { emails: { type: 'string', default: '2000' } } });
const N = Number(args.emails);

const { privateKey } = crypto.generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'der' },
});
const domain: SendingDomain = {
  id: crypto.randomUUID(),
  name: 'bench.postline-bench.test',
  status: 'verified',
  verified: true,
  sendingEnabled: true,
  dkimSelector: 'postline',
  dkimPrivateKey: privateKey,
  returnPathHost: 'send.bench.postline-bench.test',
};
const keyObject = crypto.createPrivateKey(privateKey);

/** Mean microseconds per call of `fn(i)` over N calls, after N/10 warm-up calls. */
async function time(fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < N / 10; i++) await fn(i);
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await fn(i);
  return ((performance.now() - t0) * 1000) / N;
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const payloads = Array.from({ length: N }, (_, i) => email(i));
  const json = payloads.map((p) => JSON.stringify(p));
  const requests = payloads.map((p) => parseEmailRequest(p, { batch: true }));
  const texts = requests.map((r) => textPart(r)!);
  const date = new Date();
  const messages = await Promise.all(requests.map((request, i) => composeMessage({ request, text: texts[i]!, messageId: `<${i}@${domain.name}>`, date })));
  const batch = payloads.slice(0, 100);
  const busy = await waitForQuiet('accept-steps', run.nproc);

  const steps: [string, number][] = [
    ['JSON.parse of the email (HTTP body)', await time((i) => JSON.parse(json[i]!))],
    ['validate (parseEmailRequest)', await time((i) => parseEmailRequest(payloads[i], { batch: true }))],
    ['text part from html (html-to-text)', await time((i) => textPart(requests[i]!))],
    [
      'compose MIME (MailComposer tree, synchronous writer)',
      await time((i) => composeMessage({ request: requests[i]!, text: texts[i]!, messageId: `<${i}@x>`, date })),
    ],
    ['DKIM sign (signMessage: mailauth canonicalisation + RSA on the libuv pool), one at a time', await time((i) => signMessage(messages[i]!, domain))],
    ['  of which: RSA-2048 signature alone (synchronous crypto.sign)', await time((i) => crypto.sign('sha256', Buffer.from(String(i)), keyObject))],
    [
      '  DKIM sign, 100 at a time as in a batch (wall time ÷ 100, both cores)',
      await time(async (i) => (i % 100 === 0 ? Promise.all(messages.slice(i, i + 100).map((m) => signMessage(m, domain))) : undefined)),
    ],
    ['request log: redact + JSON.stringify, per email of a 100-email batch', (await time(() => JSON.stringify(redact(batch)))) / 100],
  ];
  const pipeline = steps.filter(([name]) => !name.startsWith('  ')).reduce((a, [, us]) => a + us, 0);
  console.log(
    '\n' +
      table(
        ['step', 'µs per email', 'emails/s per core if only this step', 'share of these steps'],
        [
          ...steps.map(([name, us]) => [name, fixed(us, 1), fixed(1e6 / us), name.startsWith('  ') ? '' : `${fixed((us / pipeline) * 100)}%`]),
          ['sum of the steps', fixed(pipeline, 1), fixed(1e6 / pipeline), '100%'],
        ],
      ),
  );
  console.log(
    `\n(machine ${busy}% busy before the measurement; ${N} emails of ${Buffer.byteLength(json[0]!)} bytes JSON; MIME ${messages[0]!.length} bytes before signing)`,
  );
  console.log(
    `results appended to ${appendResults('accept-steps', run, [{ emails: N, busyBefore: busy, steps: Object.fromEntries(steps.map(([k, v]) => [k.trim(), v])) }])}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
