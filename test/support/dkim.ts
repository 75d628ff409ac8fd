// DKIM verification of a message as a receiving MTA does it (mailauth), the keys resolved on
// the test DNS server.
import dns from 'node:dns';
import { authenticate } from 'mailauth';
import type { TestPostline } from './postline.js';

/** Each DKIM signature's result and signing domain. */
export async function verifyDkim(t: Pick<TestPostline, 'dns'>, raw: Buffer): Promise<{ result: string; domain: string }[]> {
  const resolver = new dns.promises.Resolver();
  resolver.setServers([t.dns.address]);
  const { dkim } = await authenticate(raw, {
    resolver: (name: string, rr: string) => resolver.resolve(name, rr as 'TXT') as Promise<string[][]>,
    ip: '127.0.0.1',
    helo: 'mta.postline.test',
    sender: 'bounces@postline.test',
    mta: 'mx.test',
    disableArc: true,
    disableBimi: true,
    disableDmarc: true,
  });
  return dkim.results.map((r: any) => ({ result: r.status.result, domain: r.signingDomain }));
}
