// Which local address an outgoing SMTP connection leaves from (POSTLINE_OUTBOUND_IPS): the
// listed addresses in turn, or, for a domain pinned to some of them (domains.outbound_ips),
// those in turn. Receivers judge reputation per sending IP, so an operator may keep a domain's
// mail on addresses of its own. A pin naming none of this node's addresses falls back to all
// of them: the node cannot send from an address it does not have.
export class OutboundIps {
  private next = new Map<string, number>();

  constructor(private addresses: readonly string[]) {}

  /** The address for the next connection of a domain with `pin` (null: not pinned); undefined: the system chooses. */
  pick(pin: readonly string[] | null): string | undefined {
    if (this.addresses.length === 0) return undefined;
    const pinned = pin?.filter((ip) => this.addresses.includes(ip)) ?? [];
    const pool = pinned.length > 0 ? pinned : this.addresses;
    const key = pool.join(',');
    const i = this.next.get(key) ?? 0;
    this.next.set(key, (i + 1) % pool.length);
    return pool[i % pool.length];
  }
}
