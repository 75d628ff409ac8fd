// By default a `path` may not reach the installation's own network: loopback, private,
// link-local and reserved addresses are refused before any connection is made, whether the
// URL names the address or a host that resolves to it (any of its addresses).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { closeServer } from '../support/eventually.js';

describe('attachments: paths into private networks are refused by default', () => {
  let t: TestPostline;
  let server: http.Server;
  let port: number;
  let hits = 0;

  before(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end('secret');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    t.dns.set('internal.acme.test', { A: ['127.0.0.1'] });
    // One public address and one private one: refused, the connection could go to either.
    t.dns.set('mixed.acme.test', { A: ['93.184.216.34', '10.1.2.3'] });
    t.dns.set('v6.acme.test', { AAAA: ['fd00::1'] });
  });
  after(async () => {
    await closeServer(server);
    await t.stop();
  });

  it('refuses loopback, private, link-local and mapped addresses, by literal or by name', async () => {
    const paths = [
      `http://127.0.0.1:${port}/secret`,
      `http://localhost:${port}/secret`,
      `http://internal.acme.test:${port}/secret`,
      'http://mixed.acme.test/secret',
      'http://v6.acme.test/secret',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://[::1]/',
      `http://[::ffff:127.0.0.1]:${port}/`,
      'http://0.0.0.0/',
      'http://2130706433/', // 127.0.0.1 written as a number
      `http://0177.0.0.1:${port}/`, // and in octal
    ];
    for (const path of paths) {
      const { error } = await t.resend.emails.send({
        from: 'hello@acme.test',
        to: 'ann@example.org',
        subject: 'x',
        text: 'y',
        attachments: [{ path }],
      });
      assert.equal(error?.statusCode, 422, `${path}: ${JSON.stringify(error)}`);
      assert.equal(error?.name, 'invalid_attachment');
      assert.match(error!.message, /is not a public address \(|could not be resolved|has no address/, path);
    }
    assert.equal(hits, 0, 'no request reached the private server');
    assert.equal(Number((await t.sql('SELECT count(*) AS n FROM emails'))[0].n), 0);
  });
});
