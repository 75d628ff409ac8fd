// The SMTP fuzzer, shared by test/smtp/fuzz-sessions.test.ts (a fixed seed, a bounded count)
// and bench/fuzz-smtp.ts (longer runs, figures): a Postline with a verified sending domain,
// a receiving domain and the MX sink; rounds of generated sessions played against both of
// its port kinds; and the aftermath: every message a 250 acknowledged is stored once and
// delivered once, nothing else is, and a well-behaved nodemailer submission still goes through.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { eventually } from '../../support/eventually.js';
import { createVerifiedDomain } from '../../support/domains.js';
import type { TestPostline } from '../../support/postline.js';
import { FROM, implicitPort, queuedId, startSmtpTest, starttlsPort, transport } from '../support.js';
import { type Accepted, type FuzzTarget, runSession } from './run-session.js';
import { round, type SessionPlan } from './session-plans.js';

const RECEIVING_DOMAIN = 'inbox.test';
/** The server's idle and data timeouts while fuzzing, short so that waiting for them is cheap. */
const TIMEOUT_MS = 1_500;

class FuzzFigures {
  sessions = 0;
  /** Sessions by port kind and how they were set up before the fuzzing (`starttls/auth`, …). */
  readonly kinds = new Map<string, number>();
  readonly codes = new Map<number, number>();
  slowestReplyMs = 0;
  slowestReplyTo = '';
  readonly submissions = new Map<string, string[]>();
  /** Acknowledgements of a submission already acknowledged (an idempotency key's replay). */
  replays = 0;
  inbound = 0;
  readonly problems: string[] = [];

  add(plan: SessionPlan, report: Awaited<ReturnType<typeof runSession>>): void {
    this.sessions++;
    const kind = `${plan.port}/${plan.start}`;
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    for (const [code, n] of report.codes) this.codes.set(code, (this.codes.get(code) ?? 0) + n);
    if (report.slowestReplyMs > this.slowestReplyMs) {
      this.slowestReplyMs = report.slowestReplyMs;
      this.slowestReplyTo = report.slowestReplyTo;
    }
    for (const accepted of report.accepted) this.record(accepted);
  }

  private record({ emailId, recipients, inbound }: Accepted): void {
    if (inbound) this.inbound++;
    else if (emailId && this.submissions.has(emailId)) this.replays++;
    else if (emailId) this.submissions.set(emailId, recipients);
  }
}

export class SmtpFuzzer {
  readonly figures = new FuzzFigures();
  private nextAddress = 0;

  private constructor(
    readonly t: TestPostline,
    readonly target: FuzzTarget,
  ) {}

  static async start(): Promise<SmtpFuzzer> {
    const t = await startSmtpTest({ POSTLINE_SMTP_TIMEOUT: `${TIMEOUT_MS}ms`, POSTLINE_SMTP_DATA_TIMEOUT: `${TIMEOUT_MS}ms` });
    await createVerifiedDomain(t, RECEIVING_DOMAIN, { receiving: true });
    const target: FuzzTarget = {
      starttlsPort: starttlsPort(t),
      implicitPort: implicitPort(t),
      apiKey: t.apiKey,
      timeoutMs: TIMEOUT_MS,
      checks: {
        apiKey: t.apiKey,
        receives: (address) => /^postmaster(@mta\.postline\.test)?$/.test(address) || address.endsWith(`@${RECEIVING_DOMAIN}`),
      },
    };
    return new SmtpFuzzer(t, target);
  }

  /** The sessions of a round; `timeouts`: some wait for the server's timeouts; messages up to `largestKb`. */
  rounds(options: { timeouts: boolean; largestKb: number }) {
    return round({ apiKey: this.target.apiKey, ...options });
  }

  /** Plays the sessions side by side, each from its own loopback address; returns their problems. */
  async play(plans: SessionPlan[]): Promise<string[]> {
    const reports = await Promise.all(plans.map((plan) => runSession(this.target, plan, this.localAddress())));
    const problems: string[] = [];
    reports.forEach((report, i) => {
      this.figures.add(plans[i]!, report);
      problems.push(...report.problems.map((p) => `session ${i} (${plans[i]!.port}/${plans[i]!.start}): ${p}`));
      if (report.problems.length && process.env.FUZZ_TRACE) {
        problems.push(`session ${i} transcript:\n  ${report.transcript.join('\n  ')}`);
        appendFileSync(process.env.FUZZ_TRACE, `${JSON.stringify(plans[i])}\n`);
      }
    });
    this.figures.problems.push(...problems);
    return problems;
  }

  /** fast-check's run of `numRuns` rounds from `seed`: throws with the smallest failing round it finds. */
  async run(options: { numRuns: number; seed: number; timeouts: boolean; largestKb: number }): Promise<void> {
    await fc.assert(
      fc.asyncProperty(this.rounds(options), async (plans) => {
        const problems = await this.play(plans);
        assert.deepEqual(problems, []);
      }),
      { numRuns: options.numRuns, seed: options.seed, endOnFailure: process.env.FUZZ_SHRINK !== '1' },
    );
  }

  /**
   * Every submission acknowledged is stored once and nothing else was; every inbound message
   * acknowledged is stored; each accepted recipient at the sink's domain gets the message once.
   */
  async checkAftermath(): Promise<void> {
    const { t, figures } = this;
    const rows = await t.sql(`SELECT id FROM emails WHERE source = 'smtp'`);
    assert.deepEqual(rows.map((r) => r.id).sort(), [...figures.submissions.keys()].sort(), 'the emails stored are the ones acknowledged');
    const [{ count }] = await t.sql(`SELECT count(*)::int AS count FROM inbound_messages`);
    assert.equal(count, figures.inbound, 'the inbound messages stored are the ones acknowledged');

    const expected = [...figures.submissions].flatMap(([id, recipients]) => recipients.filter((r) => r.endsWith('@example.net')).map((r) => `${id} ${r}`));
    const deliveredNow = () => sinkDeliveries(t).filter((d) => figures.submissions.has(d.split(' ')[0]!));
    await eventually(async () => expected.every((e) => deliveredNow().includes(e)), 60_000, 'every accepted message at the sink');
    await eventually(
      async () => (await t.sql(`SELECT 1 FROM deliveries WHERE status = 'queued' AND domain = 'example.net'`)).length === 0,
      30_000,
      'no delivery to the sink in flight',
    );
    assert.deepEqual(deliveredNow().sort(), expected.sort(), 'each accepted recipient got its message once');
  }

  /** A well-behaved submission after the fuzzing: STARTTLS, AUTH, accepted and delivered. */
  async checkStillServes(): Promise<void> {
    const info = await transport(this.t).sendMail({ from: FROM, to: 'after-fuzz@example.net', subject: 'After the fuzzing', text: 'still here' });
    const id = queuedId(info.response);
    await eventually(async () => sinkDeliveries(this.t).includes(`${id} after-fuzz@example.net`), 30_000, 'the last message at the sink');
  }

  private localAddress(): string {
    this.nextAddress = (this.nextAddress % 250) + 1;
    return `127.0.0.${this.nextAddress + 1}`;
  }
}

/** `<email id> <recipient>` for each recipient of each message the sink got from Postline. */
function sinkDeliveries(t: TestPostline): string[] {
  return t.sink.messages.flatMap((m) => {
    const id = /^Message-ID: <([0-9a-f-]{36})@/im.exec(m.raw.toString('latin1'))?.[1];
    return id ? m.to.map((to) => `${id} ${to}`) : [];
  });
}
