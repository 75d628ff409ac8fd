// A real DNS server on loopback (UDP) for tests: answers A, AAAA, MX and TXT from a zone the
// test edits, NXDOMAIN for names it has never heard of.
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import packet from 'dns-packet';

type Records = { A?: string[]; AAAA?: string[]; MX?: { exchange: string; priority: number }[]; TXT?: string[] };

export class TestDnsServer {
  private zone = new Map<string, Records>();
  private socket = dgram.createSocket('udp4');
  queries: { name: string; type: string }[] = [];
  ttl = 60;
  port = 0;
  /** Queries to leave unanswered, as if their datagrams were lost. */
  dropNext = 0;

  async start(): Promise<this> {
    this.socket.on('message', (msg, rinfo) => this.answer(msg, rinfo));
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    this.port = (this.socket.address() as AddressInfo).port;
    return this;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  set(name: string, records: Records): void {
    const key = name.toLowerCase().replace(/\.$/, '');
    this.zone.set(key, { ...this.zone.get(key), ...records });
  }

  delete(name: string): void {
    this.zone.delete(name.toLowerCase());
  }

  private answer(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const query = packet.decode(msg);
    const question = query.questions?.[0];
    if (!question) return;
    this.queries.push({ name: question.name, type: question.type });
    if (this.dropNext > 0) {
      this.dropNext--;
      return;
    }
    const records = this.zone.get(question.name.toLowerCase());
    const answers: packet.Answer[] = [];
    const base = { name: question.name, ttl: this.ttl, class: 'IN' as const };
    if (records) {
      if (question.type === 'A') for (const a of records.A ?? []) answers.push({ ...base, type: 'A', data: a });
      if (question.type === 'AAAA') for (const a of records.AAAA ?? []) answers.push({ ...base, type: 'AAAA', data: a });
      if (question.type === 'MX')
        for (const mx of records.MX ?? []) answers.push({ ...base, type: 'MX', data: { exchange: mx.exchange, preference: mx.priority } });
      if (question.type === 'TXT') for (const t of records.TXT ?? []) answers.push({ ...base, type: 'TXT', data: chunk(t) });
    }
    const response = packet.encode({
      type: 'response',
      id: query.id,
      flags: packet.AUTHORITATIVE_ANSWER | (records ? 0 : 3), // rcode 3 = NXDOMAIN
      questions: query.questions,
      answers,
    });
    this.socket.send(response, rinfo.port, rinfo.address);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }
}

/** TXT strings are at most 255 bytes each; long values (DKIM keys) are split. */
function chunk(value: string): string[] {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i += 255) parts.push(value.slice(i, i + 255));
  return parts;
}
