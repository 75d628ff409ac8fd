// DNS lookups for delivery (MX, A/AAAA, TLSA) and domain verification (TXT, MX), sent to
// POSTLINE_DNS_SERVERS (`ip[:port],…`) or the system's resolvers, answers cached by their
// TTL. dns-packet does the wire format; this file only sends queries and reads answers,
// because node's resolver neither reports MX/TXT TTLs nor exposes the response code or the
// AD bit. Every query sets AD (RFC 6840 §5.7) so a validating resolver says whether the answer
// is DNSSEC-secure; DANE (RFC 7672) trusts that bit, so the resolver must be trusted and near
// (loopback), as RFC 4035 §4.9.3 says. A bogus answer comes back as SERVFAIL: a
// DnsTemporaryError, never "no records".
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import crypto from 'node:crypto';
import packet from 'dns-packet';

type RecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'CNAME' | 'TLSA';

interface MxRecord {
  exchange: string;
  priority: number;
}

/** A TLSA record (RFC 6698 §2.1): what a TLS server's certificate chain must match. */
export interface TlsaRecord {
  /** 0 PKIX-TA, 1 PKIX-EE, 2 DANE-TA, 3 DANE-EE (RFC 7218). */
  usage: number;
  /** 0: the whole certificate, 1: its SubjectPublicKeyInfo. */
  selector: number;
  /** 0: exact bytes, 1: SHA-256, 2: SHA-512. */
  matchingType: number;
  /** The certificate association data. */
  data: Buffer;
}

/** A server failure or time-out: the answer is unknown, try again later. */
export class DnsTemporaryError extends Error {}

interface LookupOptions {
  /** Ask the server even when a cached answer is still fresh (domain verification). */
  fresh?: boolean;
}

interface Server {
  host: string;
  port: number;
}

interface Lookup {
  /** NXDOMAIN: the name does not exist. */
  nxdomain: boolean;
  answers: packet.Answer[];
  /** The resolver validated the answer, or the denial, with DNSSEC (the AD bit of its response). */
  secure: boolean;
}

/** TCP (a truncated answer asked again): one deadline. */
const TCP_TIMEOUT_MS = 4_000;
/** UDP: 8 steps of 500 ms (4 s), the query sent again after 1 s and 2.5 s. */
const UDP_STEP_MS = 500;
const UDP_RESEND_AT_STEPS = [2, 5];
const UDP_GIVE_UP_AFTER_STEPS = 8;
const NEGATIVE_TTL_S = 30;
const MAX_TTL_S = 3_600;

function parseServer(spec: string): Server {
  const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(spec);
  if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 53) };
  if (net.isIPv6(spec)) return { host: spec, port: 53 };
  const [host, port] = spec.split(':');
  return { host: host!, port: Number(port ?? 53) };
}

export class DnsResolver {
  private servers: Server[];
  private cache = new Map<string, { expires: number; value: Lookup }>();
  /** Lookups in flight: concurrent asks for one name share one query. */
  private pending = new Map<string, Promise<Lookup>>();

  constructor(servers: string[]) {
    const specs = servers.length ? servers : dns.getServers();
    this.servers = specs.map(parseServer);
  }

  /** MX records sorted by preference; [] when the domain has none; null when it does not exist. */
  async mx(domain: string, options: LookupOptions = {}): Promise<MxRecord[] | null> {
    return (await this.mxSecure(domain, options)).records;
  }

  /** mx(), and whether the answer (or the proof that the domain does not exist) is DNSSEC-secure. */
  async mxSecure(domain: string, options: LookupOptions = {}): Promise<{ records: MxRecord[] | null; secure: boolean }> {
    const result = await this.lookup(domain, 'MX', options);
    if (result.nxdomain) return { records: null, secure: result.secure };
    const records = result.answers
      .filter((a): a is packet.MxAnswer => a.type === 'MX')
      .map((a) => ({ exchange: a.data.exchange.replace(/\.$/, '').toLowerCase(), priority: a.data.preference ?? 0 }))
      .sort((a, b) => a.priority - b.priority);
    return { records, secure: result.secure };
  }

  /**
   * The TLSA records of a name (`_25._tcp.<mx host>`, RFC 7672 §2.2.3); [] when it has none or
   * does not exist, with `secure` telling whether that absence was proven (a secure denial).
   */
  async tlsa(name: string): Promise<{ records: TlsaRecord[]; secure: boolean }> {
    const result = await this.lookup(name, 'TLSA');
    const records = result.answers
      .filter((a): a is packet.TlsaAnswer => a.type === 'TLSA')
      .map((a) => ({ usage: a.data.usage, selector: a.data.selector, matchingType: a.data.matchingType, data: Buffer.from(a.data.certificate) }));
    return { records, secure: result.secure };
  }

  /** TXT records, each joined from its strings. */
  async txt(name: string, options: LookupOptions = {}): Promise<string[]> {
    const result = await this.lookup(name, 'TXT', options);
    return result.answers
      .filter((a): a is packet.TxtAnswer => a.type === 'TXT')
      .map((a) => (Array.isArray(a.data) ? a.data : [a.data]).map((part) => part.toString()).join(''));
  }

  /** The names a CNAME record at `name` points to (lower case, no trailing dot). */
  async cname(name: string, options: LookupOptions = {}): Promise<string[]> {
    const result = await this.lookup(name, 'CNAME', options);
    return result.answers.filter((a): a is packet.StringAnswer => a.type === 'CNAME').map((a) => a.data.replace(/\.$/, '').toLowerCase());
  }

  /** The A records of a name alone (a DNS blocklist's answer); [] when it has none or does not exist. */
  async ipv4(name: string, options: LookupOptions = {}): Promise<string[]> {
    const result = await this.lookup(name, 'A', options);
    return result.answers.filter((a): a is packet.StringAnswer => a.type === 'A').map((a) => a.data);
  }

  /** IPv4 then IPv6 addresses of a host. */
  async addresses(host: string): Promise<string[]> {
    return (await this.addressesSecure(host)).addresses;
  }

  /**
   * addresses(), and whether they are DNSSEC-secure: both the A and the AAAA answer were (an IP
   * literal is not). A failed AAAA lookup is left out, as in addresses(): the addresses returned
   * are then the IPv4 ones, and `secure` speaks of them, so a bogus AAAA answer only hides the
   * IPv6 addresses and cannot make a signed host look unsigned.
   */
  async addressesSecure(host: string): Promise<{ addresses: string[]; secure: boolean }> {
    if (net.isIP(host)) return { addresses: [host], secure: false };
    const [v4, v6] = await Promise.all([this.lookup(host, 'A'), this.lookup(host, 'AAAA').catch(() => null)]);
    const answers = [...v4.answers, ...(v6?.answers ?? [])];
    const addresses = answers.filter((a): a is packet.StringAnswer => a.type === 'A' || a.type === 'AAAA').map((a) => a.data);
    return { addresses, secure: v4.secure && (v6?.secure ?? true) };
  }

  clearCache(): void {
    this.cache.clear();
  }

  private async lookup(name: string, type: RecordType, options: LookupOptions = {}): Promise<Lookup> {
    const key = `${type} ${name.toLowerCase()}`;
    const hit = this.cache.get(key);
    if (!options.fresh && hit && hit.expires > Date.now()) return hit.value;
    const inFlight = this.pending.get(key);
    if (inFlight && !options.fresh) return inFlight;
    const query = this.query(name, type);
    this.pending.set(key, query);
    let value: Lookup;
    try {
      value = await query;
    } finally {
      if (this.pending.get(key) === query) this.pending.delete(key);
    }
    const ttls = value.answers.filter((a) => a.type === type).map((a) => (a as packet.StringAnswer).ttl ?? 0);
    const ttl = ttls.length ? Math.min(MAX_TTL_S, ...ttls) : NEGATIVE_TTL_S;
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(key, { expires: Date.now() + ttl * 1000, value });
    return value;
  }

  private async query(name: string, type: RecordType): Promise<Lookup> {
    let lastError: Error = new DnsTemporaryError(`no DNS servers for ${name}`);
    for (const server of this.servers) {
      try {
        let response = await this.udp(server, name, type);
        if ((response.flags ?? 0) & packet.TRUNCATED_RESPONSE) response = await this.tcp(server, name, type);
        const rcode = (response as packet.DecodedPacket & { rcode?: string }).rcode;
        const secure = response.flag_ad === true;
        if (rcode === 'NXDOMAIN') return { nxdomain: true, answers: [], secure };
        // A validating resolver answers SERVFAIL for bogus data (RFC 4035 §5.5): a failure, not an absence.
        if (rcode !== 'NOERROR') throw new DnsTemporaryError(`${type} ${name}: ${rcode}`);
        return { nxdomain: false, answers: response.answers ?? [], secure };
      } catch (err) {
        lastError = err instanceof DnsTemporaryError ? err : new DnsTemporaryError(`${type} ${name}: ${(err as Error).message}`);
      }
    }
    throw lastError;
  }

  /**
   * RD, and AD to ask whether the answer is secure (RFC 6840 §5.7). Not the EDNS DO bit: unbound
   * sets AD for either, and DO would also bring the RRSIGs, making answers larger for nothing.
   */
  private encode(name: string, type: RecordType): { id: number; message: packet.Packet } {
    const id = crypto.randomInt(0, 65536);
    const flags = packet.RECURSION_DESIRED | packet.AUTHENTIC_DATA;
    return { id, message: { type: 'query', id, flags, questions: [{ type, name, class: 'IN' }] } };
  }

  private udp(server: Server, name: string, type: RecordType): Promise<packet.DecodedPacket> {
    const { id, message } = this.encode(name, type);
    const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
    const query = packet.encode(message);
    const send = () => socket.send(query, server.port, server.host);
    let timer: NodeJS.Timeout | undefined;
    return new Promise<packet.DecodedPacket>((resolve, reject) => {
      // The wait is counted in steps, each timed from the one before, so a stalled event loop
      // (a busy process) costs one step rather than the whole wait, and an answer that came in
      // meanwhile is still read. A datagram may be lost: it is sent again, as a stub resolver does.
      let steps = 0;
      const step = () => {
        steps++;
        if (steps >= UDP_GIVE_UP_AFTER_STEPS) return reject(new DnsTemporaryError(`${type} ${name}: timed out`));
        if (UDP_RESEND_AT_STEPS.includes(steps)) send();
        timer = setTimeout(step, UDP_STEP_MS);
      };
      timer = setTimeout(step, UDP_STEP_MS);
      socket.on('error', reject);
      socket.on('message', (buf) => {
        try {
          const response = packet.decode(buf);
          if (response.id !== id) return; // not ours, or an answer to another copy: keep waiting
          resolve(response);
        } catch {
          /* malformed datagram: keep waiting */
        }
      });
      send();
    }).finally(() => {
      clearTimeout(timer);
      socket.close();
    });
  }

  private tcp(server: Server, name: string, type: RecordType): Promise<packet.DecodedPacket> {
    const { message } = this.encode(name, type);
    return new Promise((resolve, reject) => {
      const socket = net.connect(server.port, server.host);
      let buf = Buffer.alloc(0);
      socket.setTimeout(TCP_TIMEOUT_MS, () => socket.destroy(new DnsTemporaryError(`${type} ${name}: timed out`)));
      socket.on('error', reject);
      socket.on('connect', () => socket.write(packet.streamEncode(message)));
      socket.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        if (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
          socket.end();
          resolve(packet.streamDecode(buf) as packet.DecodedPacket);
        }
      });
    });
  }
}
