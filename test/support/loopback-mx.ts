// The recipients' side of a process test: a test DNS server and an MX sink on loopback, with
// `dest.test` published with its MX host at the sink's address. Each is stopped by `cleanups`
// (the suite's list, run after it).
import { TestDnsServer } from './dns-server.js';
import { MxSink } from './mx-sink.js';

const DEST_DOMAIN = 'dest.test';

export async function startLoopbackMx(cleanups: (() => Promise<unknown>)[]): Promise<{ dns: TestDnsServer; sink: MxSink }> {
  const dns = await new TestDnsServer().start();
  cleanups.push(() => dns.stop());
  const sink = await new MxSink().start();
  cleanups.push(() => sink.stop());
  dns.set(DEST_DOMAIN, { MX: [{ exchange: `mx.${DEST_DOMAIN}`, priority: 10 }] });
  dns.set(`mx.${DEST_DOMAIN}`, { A: ['127.0.0.1'] });
  return { dns, sink };
}
