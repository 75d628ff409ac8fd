// A recipient domain's MTA-STS policy host for tests: a real HTTPS server on port 443 (the only
// port RFC 8461 fetches from) at an address of its own in the loopback range, so several test
// files can each run one at once, with a certificate from the test CA (test-ca.ts) for
// `mta-sts.<domain>` of every domain it serves. Each domain's answer is set by the test.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { closeServer } from './eventually.js';
import { issueCertificate } from './test-ca.js';

type Answer = { status?: number; contentType?: string; headers?: Record<string, string>; body: string };

export class PolicyHost {
  private server: https.Server;
  private answers = new Map<string, Answer>();
  /** Requests served, by domain. */
  fetches = new Map<string, number>();
  address = '';

  constructor(domains: string[]) {
    const { key, cert } = issueCertificate(domains.map((d) => `mta-sts.${d}`));
    this.server = https.createServer({ key, cert }, (req, res) => {
      const domain = (req.headers.host ?? '').replace(/^mta-sts\./, '').replace(/:\d+$/, '');
      this.fetches.set(domain, (this.fetches.get(domain) ?? 0) + 1);
      const answer = this.answers.get(domain);
      if (!answer || req.url !== '/.well-known/mta-sts.txt') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'text/plain', ...answer.headers });
      res.end(answer.body);
    });
  }

  /** Serves this policy for `domain` (lines joined with CRLF, as RFC 8461 §3.2 writes them). */
  policy(domain: string, fields: { mode: string; mx?: string[]; maxAge?: number }): void {
    const lines = ['version: STSv1', `mode: ${fields.mode}`, ...(fields.mx ?? []).map((mx) => `mx: ${mx}`), `max_age: ${fields.maxAge ?? 86400}`];
    this.answers.set(domain, { body: `${lines.join('\r\n')}\r\n` });
  }

  /** Serves anything else for `domain`: a broken policy, an error status, a redirect. */
  answer(domain: string, answer: Answer): void {
    this.answers.set(domain, answer);
  }

  async start(): Promise<this> {
    // Port 443 at a random loopback address; another test file may hold one.
    for (let attempt = 0; ; attempt++) {
      const address = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
      try {
        await new Promise<void>((resolve, reject) => this.server.once('error', reject).listen(443, address, resolve));
        this.address = (this.server.address() as AddressInfo).address;
        return this;
      } catch (err) {
        if (attempt >= 10 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await closeServer(this.server);
  }
}
