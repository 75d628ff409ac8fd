// Which local address an outgoing SMTP connection leaves from (POSTLINE_OUTBOUND_IPS): the
// listed addresses in turn, or, for a domain pinned to some of them (domains.outbound_ips),
// those in turn. Receivers judge reputation per sending IP, so an operator may keep a domain's
// mail on addresses of its own. A pin naming none of this node's addresses falls back to all
// of them: the node cannot send from an address it does not have. While the addresses warm up
// (warmup/ip-warmup.ts), one at its day's cap passes the job to the next of the pool.
export class OutboundIps {
  private next = new Map<string, number>();

  constructor(private addresses: readonly string[]) {}

  /**
   * The pool of a domain with `pin` (null: not pinned) in the order to try it for the next
   * connection: its turn's address first, then the others; empty: the system chooses.
   */
  order(pin: readonly string[] | null): string[] {
    if (this.addresses.length === 0) return [];
    const pinned = pin?.filter((ip) => this.addresses.includes(ip)) ?? [];
    const pool = pinned.length > 0 ? pinned : this.addresses;
    const key = pool.join(',');
    const i = (this.next.get(key) ?? 0) % pool.length;
    this.next.set(key, (i + 1) % pool.length);
    return [...pool.slice(i), ...pool.slice(0, i)];
  }
}
