import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventually, send, startDeliveryTest, verifyDkim, waitForLastEvent } from './support.js';

/** A smarthost that requires AUTH; STARTTLS or implicit TLS with smtp-server's built-in test certificate. */
class Smarthost {
  messages: { user: string | undefined; from: string; to: string[]; raw: Buffer; secure: boolean }[] = [];
  logins: string[] = [];
  server: SMTPServer;
  port = 0;

  constructor(options: { secure: boolean }) {
    this.server = new SMTPServer({
      secure: options.secure,
      logger: false,
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: false,
      onAuth: (auth, _session, callback) => {
        this.logins.push(`${auth.username}:${auth.password}`);
        if (auth.username === 'relay-user' && auth.password === 's3cret/pass') return callback(null, { user: auth.username });
        callback(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          this.messages.push({
            user: session.user as string | undefined,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
            secure: session.secure,
          });
          callback();
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

for (const scheme of ['smtp', 'smtps'] as const) {
  describe(`delivery: POSTLINE_RELAY_URL=${scheme}://… sends everything through the smarthost`, () => {
    let t: TestPostline;
    let relay: Smarthost;
    before(async () => {
      relay = await new Smarthost({ secure: scheme === 'smtps' }).start();
      t = await startDeliveryTest({ POSTLINE_RELAY_URL: `${scheme}://relay-user:${encodeURIComponent('s3cret/pass')}@127.0.0.1:${relay.port}` });
    });
    after(async () => {
      await t.stop();
      await relay.stop();
    });

    it('authenticates, uses TLS, and relays mail for any domain without looking up MX', async () => {
      const sinkMessages = t.sink.messages.length;
      const id = await send(t, { to: ['one@anywhere.test', 'two@elsewhere.test'] });
      await eventually(async () => (await deliveriesOf(t, id)).every((d) => d.status === 'delivered'));
      await waitForLastEvent(t, id, 'delivered');
      assert.equal(relay.messages.length, 2);
      assert.deepEqual(relay.messages.flatMap((m) => m.to).sort(), ['one@anywhere.test', 'two@elsewhere.test']);
      assert.ok(
        relay.messages.every((m) => m.user === 'relay-user' && m.secure),
        JSON.stringify(relay.messages.map((m) => [m.user, m.secure])),
      );
      assert.deepEqual(relay.logins.slice(0, 1), ['relay-user:s3cret/pass']);
      assert.equal((await verifyDkim(t, relay.messages[0]!.raw))[0]!.result, 'pass', 'the signature survives the relay hop');
      assert.equal(t.sink.messages.length, sinkMessages, 'nothing went to the MX');
      assert.ok(!t.dns.queries.some((q) => q.type === 'MX' && /anywhere|elsewhere/.test(q.name)), 'no MX lookups');
    });
  });
}
