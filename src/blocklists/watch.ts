// The worker role's part that watches the blocklists (issue 36 item 3), shared by the cluster:
// each node puts the addresses it sends from in blocklist_addresses (own-addresses.ts), and
// every node looks a few times per POSTLINE_DNSBL_INTERVAL whether a round is due; the node
// whose UPDATE moves blocklist_rounds.started_at on (only when it is an interval old, a row
// claim: the others' UPDATE then matches nothing) does the round (round.ts). So the lists get
// one round of questions per interval for the whole cluster, however many nodes there are.
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logger.js';
import { ownOutboundAddresses } from './own-addresses.js';
import { runRound } from './round.js';

/** How often a node looks whether a round is due: a quarter of the interval, within these bounds. */
const TICK_MIN_MS = 100;
const TICK_MAX_MS = 60_000;
/** A node refreshes its addresses' seen_at at most this often. */
const SEEN_REFRESH_S = 30;
/** An address no node has claimed for two intervals and this long is no longer watched. */
const STALE_GRACE_MS = 10 * 60_000;

type WatchConfig = Pick<Config, 'dnsbls' | 'domainBlocklists' | 'dnsblIntervalMs' | 'dnsServers' | 'outboundIps' | 'relayUrl' | 'sandbox'>;

interface WatchOptions {
  db: Db;
  config: WatchConfig;
  logger: Logger;
}

export class BlocklistWatch {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private addresses: Promise<string[]> | undefined;

  constructor(private options: WatchOptions) {}

  /** The zones addresses are asked of: none when mail leaves through a relay, whose own addresses carry the reputation. */
  private get ipZones(): string[] {
    return this.options.config.relayUrl ? [] : this.options.config.dnsbls;
  }

  start(): void {
    const { domainBlocklists, dnsblIntervalMs, sandbox } = this.options.config;
    // In the sandbox nothing leaves the machine: no reputation to watch, and no question to ask the lists.
    if (sandbox || (this.ipZones.length === 0 && domainBlocklists.length === 0)) return;
    const tick = () => {
      if (this.running || this.stopping) return; // the previous tick's round is still going
      this.running = this.tick()
        .catch((err) => this.options.logger.warn({ err }, 'blocklist checks failed; trying again at the next interval'))
        .finally(() => (this.running = undefined));
    };
    tick();
    this.timer = setInterval(tick, Math.min(TICK_MAX_MS, Math.max(TICK_MIN_MS, dnsblIntervalMs / 4)));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    const { db, config, logger } = this.options;
    if (this.ipZones.length > 0) {
      const addresses = await this.ownAddresses();
      if (addresses.length > 0) {
        await db.query(
          `INSERT INTO blocklist_addresses (ip) SELECT unnest($1::text[])
           ON CONFLICT (ip) DO UPDATE SET seen_at = now() WHERE blocklist_addresses.seen_at < now() - interval '${SEEN_REFRESH_S} seconds'`,
          [addresses],
        );
      }
    }
    const claimed = await db.query<{ rounds: number }>(
      `UPDATE blocklist_rounds SET started_at = now(), rounds = rounds + 1
        WHERE started_at <= now() - $1 * interval '1 millisecond' RETURNING rounds`,
      [config.dnsblIntervalMs],
    );
    if (claimed.length === 0) return; // not due, or another node has it
    const started = Date.now();
    const { targets, changes } = await runRound({
      db,
      // A resolver of the round's own: every answer asked afresh, none kept from the last round.
      resolver: new DnsResolver(config.dnsServers),
      ipZones: this.ipZones,
      domainZones: config.domainBlocklists,
      staleMs: 2 * config.dnsblIntervalMs + STALE_GRACE_MS,
      logger,
      stopping: () => this.stopping,
    });
    logger.debug({ round: claimed[0]!.rounds, targets, changes, ms: Date.now() - started }, 'blocklist round done');
  }

  /** This node's outbound addresses, found once; the ones skipped are logged then. */
  private ownAddresses(): Promise<string[]> {
    this.addresses ??= ownOutboundAddresses(this.options.config.outboundIps).then(({ addresses, skipped }) => {
      for (const { address, why } of skipped) {
        this.options.logger.info(
          { address, why },
          'blocklists: this node sends from a non-public address (through NAT?), whose public address is unknown: it is not checked (POSTLINE_OUTBOUND_IPS names the addresses to watch)',
        );
      }
      if (addresses.length === 0 && skipped.length === 0)
        this.options.logger.info('blocklists: no route to the internet found: no outbound address of this node is checked');
      return addresses;
    });
    return this.addresses;
  }
}
