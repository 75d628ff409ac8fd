// `postline queue …` run as an operator runs it: a separate process against the database of a
// running `postline start`, its output read as text. Mail to a host that answers 451 waits
// deferred; the command shows it, pauses and resumes its domain, retries it once the host
// accepts, and fails what is left.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createVerifiedDomain } from '../support/domains.js';
import { TestDnsServer } from '../support/dns-server.js';
import { MxSink } from '../support/mx-sink.js';
import { testDbMode } from '../support/postline.js';
import { eventually } from '../support/eventually.js';
import { baseEnv, externalDatabase, newApiKey, PostlineProcess, postmastersOf, runCli, tempDataDir } from './postline-process.js';

const external = testDbMode() === 'external';

describe(`postline queue beside a running server (${external ? 'DATABASE_URL' : 'embedded'})`, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: PostlineProcess;
  let dropDatabase: (() => Promise<void>) | undefined;
  let dns: TestDnsServer;
  let sink: MxSink;
  let resend: Resend;
  let busy = true;
  const apiKey = newApiKey();
  const queue = async (...args: string[]) => {
    const result = await runCli(['queue', ...args], env);
    return { ...result, lines: result.stdout.split('\n') };
  };
  const send = async (to: string) => {
    const { data, error } = await resend.emails.send({ from: 'ops@sender.test', to, subject: 'Hi', text: 'Hello' });
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };
  const lastEvent = async (id: string) => (await resend.emails.get(id)).data?.last_event;

  before(async () => {
    dataDir = await tempDataDir();
    dns = await new TestDnsServer().start();
    sink = await new MxSink('127.0.0.1').start();
    sink.onRecipient = () => (busy ? { code: 451, message: '4.7.1 Greylisted, come back later' } : undefined);
    dns.set('slow.test', { MX: [{ exchange: 'mx.slow.test', priority: 10 }] });
    dns.set('mx.slow.test', { A: ['127.0.0.1'] });
    const database = external ? await externalDatabase() : undefined;
    dropDatabase = database?.drop;
    env = baseEnv({
      POSTLINE_DATA_DIR: dataDir,
      POSTLINE_BOOTSTRAP_API_KEY: apiKey,
      POSTLINE_DNS_SERVERS: dns.address,
      POSTLINE_OUTBOUND_PORT: String(sink.port),
      POSTLINE_RETRY_DELAYS: '1h',
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
    server = await PostlineProcess.start(env);
    resend = new Resend(apiKey, { baseUrl: server.url });
    await createVerifiedDomain({ dns, resend }, 'sender.test');
  });
  after(async () => {
    await server?.stop().catch(() => {});
    for (const pid of await postmastersOf(dataDir)) process.kill(pid, 'SIGKILL');
    await Promise.all([dns?.stop(), sink?.stop()]);
    await fs.rm(dataDir, { recursive: true, force: true });
    await dropDatabase?.();
  });

  it('prints an empty queue as a sentence', async () => {
    const result = await queue();
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^The queue is empty/);
  });

  it('prints the summary as a table: destination, states, age, the last reply', async () => {
    const ids = [await send('a@slow.test'), await send('b@slow.test')];
    for (const id of ids) await eventually(async () => (await lastEvent(id)) === 'delivery_delayed', 15_000, 'deferred');
    const result = await queue();
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.lines[0]!, /^2 waiting \(0 due, 0 in flight, 2 deferred, 0 scheduled, 0 paused\); oldest \d+s$/);
    assert.match(result.lines[2]!, /^DESTINATION +PROVIDER +DUE +IN FLIGHT +DEFERRED +SCHEDULED +PAUSED +OLDEST +LAST REPLY$/);
    assert.match(result.lines[3]!, /^slow\.test +— +0 +0 +2 +0 +0 +\d+s +mx\.slow\.test 451 4\.7\.1 Greylisted, come back later$/);

    const json = JSON.parse((await queue('--json')).stdout);
    assert.equal(json.destinations[0].counts.deferred, 2);

    const listed = await queue('list', 'slow.test');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.lines[0]!, /^ID +EMAIL +RECIPIENT +STATE +ATTEMPTS +NEXT ATTEMPT +LAST ATTEMPT$/);
    assert.deepEqual(
      listed.lines.slice(1, 3).map((l) => l.split(/ {2,}/).slice(2, 5)),
      [
        ['a@slow.test', 'deferred', '1'],
        ['b@slow.test', 'deferred', '1'],
      ],
    );
  });

  it('pauses and resumes a domain, retries it, and fails what is left, each with a one-line answer', async () => {
    const paused = await queue('pause', 'slow.test', '--reason', 'their MX is broken');
    assert.equal(paused.code, 0, paused.stderr);
    assert.equal(paused.stdout, 'domain slow.test paused (2 waiting now): their MX is broken\n');
    assert.match(
      (await queue()).stdout,
      /slow\.test \(paused\)[\s\S]*PAUSED +KIND +MAIL FROM +SINCE +REASON\nslow\.test +domain +all +\S+ +their MX is broken\n/,
    );

    const resumed = await queue('resume', 'slow.test');
    assert.equal(resumed.stdout, 'slow.test resumed (2 due now)\n');
    // Due now, tried again, deferred again: the host still refuses.
    await eventually(async () => JSON.parse((await queue('--json')).stdout).counts.deferred === 2, 15_000, 'deferred again');

    busy = false;
    const [first] = JSON.parse((await queue('list', 'slow.test', '--json')).stdout).data;
    const retried = await queue('retry', '--email', first.email_id);
    assert.equal(retried.stdout, '1 made due now\n');
    await eventually(async () => (await lastEvent(first.email_id)) === 'delivered', 15_000, 'delivered after retry');

    busy = true;
    const failed = await queue('fail', 'slow.test', '--reason', 'given up by the operator');
    assert.equal(failed.stdout, '1 failed: given up by the operator\n');
    assert.match((await queue()).stdout, /^The queue is empty/);
  });

  it('refuses a bad command line with the reason and the usage, exit code 1', async () => {
    for (const [args, reason] of [
      [['frobnicate'], /unknown queue command "frobnicate"/],
      [['pause', 'slow.test'], /needs --reason/],
      [['list'], /needs a destination/],
      [['list', 'not a domain!'], /must be a recipient domain/],
      [['--limit', '0'], /--limit must be a number/],
      [['--account', 'nope'], /no account nope/],
    ] as const) {
      const result = await queue(...args);
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, reason);
      assert.match(result.stderr, /postline queue/);
    }
  });
});
