// The addresses this node's mail leaves from, to be watched on the blocklists: POSTLINE_OUTBOUND_IPS
// when set (the addresses outgoing connections are bound to, public or not: the operator chose
// them). Unset, the system chooses the source address of each connection: it is the one its
// routing table picks for a public destination, found by "connecting" a UDP socket (a route
// lookup: no packet is sent) to a documentation address (RFC 5737 / RFC 3849), for IPv4 and
// IPv6. Only a public address is watched: a private one means the node sends through NAT, whose
// public address Postline cannot know without asking an outside service, so it is skipped with
// a log line (set POSTLINE_OUTBOUND_IPS, or watch the NAT's address elsewhere).
import dgram from 'node:dgram';
import { nonPublicRange } from '../egress/address-ranges.js';

const PROBES = [
  { type: 'udp4', address: '192.0.2.1' },
  { type: 'udp6', address: '2001:db8::1' },
] as const;

/** The source address the system picks towards `address`, or undefined without a route. */
function sourceAddress(type: 'udp4' | 'udp6', address: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(type);
    const done = (value: string | undefined) => {
      try {
        socket.close();
      } catch {
        /* closed already */
      }
      resolve(value);
    };
    socket.on('error', () => done(undefined));
    try {
      socket.connect(25, address, () => {
        try {
          done(socket.address().address);
        } catch {
          done(undefined);
        }
      });
    } catch {
      done(undefined);
    }
  });
}

/** This node's outbound addresses to watch, and the ones skipped with why. */
export async function ownOutboundAddresses(configured: readonly string[]): Promise<{ addresses: string[]; skipped: { address: string; why: string }[] }> {
  if (configured.length > 0) return { addresses: [...configured], skipped: [] };
  const found = await Promise.all(PROBES.map((p) => sourceAddress(p.type, p.address)));
  const addresses: string[] = [];
  const skipped: { address: string; why: string }[] = [];
  for (const address of found) {
    if (address === undefined) continue;
    const range = nonPublicRange(address);
    if (range === undefined) addresses.push(address);
    else skipped.push({ address, why: range });
  }
  return { addresses, skipped };
}
