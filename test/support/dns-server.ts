// A real DNS server on loopback for tests, on UDP and TCP at one port as RFC 7766 asks: answers
// A, AAAA, MX, TXT and CNAME (asked for itself) from a zone the test edits, NXDOMAIN for names it has never heard of. An
// answer too large for a 512-byte datagram (RFC 1035 §4.2.1; queries carry no EDNS) is sent
// over UDP empty with the TC bit, so the client asks again over TCP, as a real server makes it.
import dgram from 'node:dgram';
import net from 'node:net';
import packet from 'dns-packet';
import { closeServer } from './eventually.js';

type Records = { A?: string[]; AAAA?: string[]; MX?: { exchange: string; priority: number }[]; TXT?: string[]; CNAME?: string };

/** The largest DNS message over UDP without EDNS (RFC 1035 §4.2.1). */
const UDP_PAYLOAD_LIMIT = 512;

export class TestDnsServer {
  private zone = new Map<string, Records>();
  private socket!: dgram.Socket;
  private tcpServer = net.createServer((connection) => this.serveTcp(connection));
  private tcpConnections = new Set<net.Socket>();
  queries: { name: string; type: string; transport: 'udp' | 'tcp' }[] = [];
  ttl = 60;
  port = 0;
  /** Queries to leave unanswered, as if their datagrams were lost (UDP only). */
  dropNext = 0;

  async start(): Promise<this> {
    // TCP first on a free port, then UDP on the same number; another process may hold that
    // UDP port, so a few ports are tried.
    for (let attempt = 0; ; attempt++) {
      await new Promise<void>((resolve, reject) => this.tcpServer.once('error', reject).listen(0, '127.0.0.1', resolve));
      this.port = (this.tcpServer.address() as net.AddressInfo).port;
      this.socket = this.udpSocket();
      try {
        await new Promise<void>((resolve, reject) => this.socket.once('error', reject).bind(this.port, '127.0.0.1', resolve));
        return this;
      } catch (err) {
        await closeServer(this.tcpServer);
        if (attempt >= 4) throw err;
      }
    }
  }

  private udpSocket(): dgram.Socket {
    const socket = dgram.createSocket('udp4');
    socket.on('message', (msg, rinfo) => {
      const response = this.answer(msg, 'udp');
      if (response) socket.send(response, rinfo.port, rinfo.address);
    });
    return socket;
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

  /** Each TCP message is prefixed by its two-byte length (RFC 1035 §4.2.2); a connection may carry several. */
  private serveTcp(connection: net.Socket): void {
    this.tcpConnections.add(connection);
    connection.on('close', () => this.tcpConnections.delete(connection));
    connection.on('error', () => {});
    let buffer = Buffer.alloc(0);
    connection.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0)) {
        const length = buffer.readUInt16BE(0);
        const response = this.answer(buffer.subarray(2, 2 + length), 'tcp');
        buffer = buffer.subarray(2 + length);
        if (!response) continue;
        const prefix = Buffer.alloc(2);
        prefix.writeUInt16BE(response.length);
        connection.write(Buffer.concat([prefix, response]));
      }
    });
  }

  private answer(msg: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined {
    const query = packet.decode(msg);
    const question = query.questions?.[0];
    if (!question) return undefined;
    this.queries.push({ name: question.name, type: question.type, transport });
    if (transport === 'udp' && this.dropNext > 0) {
      this.dropNext--;
      return undefined;
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
      if (question.type === 'CNAME' && records.CNAME) answers.push({ ...base, type: 'CNAME', data: records.CNAME });
    }
    const flags = packet.AUTHORITATIVE_ANSWER | (records ? 0 : 3); // rcode 3 = NXDOMAIN
    const response = packet.encode({ type: 'response', id: query.id, flags, questions: query.questions, answers });
    if (transport === 'tcp' || response.length <= UDP_PAYLOAD_LIMIT) return response;
    return packet.encode({ type: 'response', id: query.id, flags: flags | packet.TRUNCATED_RESPONSE, questions: query.questions, answers: [] });
  }

  async stop(): Promise<void> {
    for (const connection of this.tcpConnections) connection.destroy();
    await Promise.all([
      new Promise<void>((resolve) => this.socket.close(() => resolve())),
      new Promise<void>((resolve) => this.tcpServer.close(() => resolve())),
    ]);
  }
}

/** TXT strings are at most 255 bytes each; long values (DKIM keys) are split. */
function chunk(value: string): string[] {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i += 255) parts.push(value.slice(i, i + 255));
  return parts;
}
