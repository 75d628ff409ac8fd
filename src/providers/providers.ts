// Mailbox providers: which company's servers a recipient domain's mail goes to. Many domains
// roll up to one provider (every Google Workspace domain has Google's MX hosts), and operators
// think, throttle and pause per provider, so the queue's summary, the metrics and the
// delivery worker name destinations by it.
//
// A domain belongs to the first provider one of whose MX host patterns matches one of the
// domain's MX hosts, or, before its MX hosts are known, whose list of domains names it. The
// table is data: an operator adds or overrides entries with POSTLINE_PROVIDERS_FILE (a JSON
// array of the same shape, tried before the built-in entries). A domain of no known provider
// is its own destination and has provider null.

export interface Provider {
  /** Short lower-case name, as shown and as given to pause a provider: `google`, `microsoft`, … */
  name: string;
  /** MX host suffixes (`.google.com` matches `aspmx.l.google.com`); an entry without a dot at the start matches exactly. */
  mx: string[];
  /** Well-known mailbox domains of the provider, known before any MX lookup. */
  domains: string[];
  /** How fast one node sends to it (delivery/shaping.ts); PROVIDER_SHAPING where absent. */
  shaping?: ShapingLimits;
}

/** Traffic shaping limits of one destination, per node. */
export interface ShapingLimits {
  /** SMTP sessions open to the destination at once. */
  connections: number;
  /** Messages over one session before it is closed and a new one opened. */
  messagesPerConnection: number;
  /** Messages a minute; null: no limit until the destination's replies ask for one. */
  messagesPerMinute: number | null;
}

/** A provider's limits when its entry sets none: the field's common defaults (KumoMTA's shaping.toml). */
const PROVIDER_SHAPING: ShapingLimits = { connections: 10, messagesPerConnection: 100, messagesPerMinute: null };

const BUILT_IN_PROVIDERS: readonly Provider[] = [
  // Shaping: what operators use and providers ask for (KumoMTA's community shaping.toml; Yahoo's
  // sender best practices: at most 20 messages a connection; Apple's iCloud Mail for senders).
  {
    name: 'google',
    mx: ['.google.com', '.googlemail.com'],
    domains: ['gmail.com', 'googlemail.com'],
    shaping: { connections: 5, messagesPerConnection: 50, messagesPerMinute: null },
  },
  {
    name: 'microsoft',
    mx: ['.outlook.com', '.hotmail.com'],
    domains: ['outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'hotmail.co.uk', 'hotmail.fr', 'live.co.uk', 'outlook.de'],
    shaping: { connections: 5, messagesPerConnection: 50, messagesPerMinute: null },
  },
  {
    name: 'yahoo',
    mx: ['.yahoodns.net', '.yahoo.com', '.aol.com'],
    domains: ['yahoo.com', 'ymail.com', 'rocketmail.com', 'aol.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.co.jp'],
    shaping: { connections: 10, messagesPerConnection: 20, messagesPerMinute: null },
  },
  {
    name: 'apple',
    mx: ['.icloud.com', '.me.com'],
    domains: ['icloud.com', 'me.com', 'mac.com'],
    shaping: { connections: 10, messagesPerConnection: 5, messagesPerMinute: null },
  },
  { name: 'zoho', mx: ['.zoho.com', '.zoho.eu', '.zohomail.com'], domains: ['zohomail.com', 'zoho.com'] },
  { name: 'proton', mx: ['.protonmail.ch', '.proton.me'], domains: ['proton.me', 'protonmail.com', 'pm.me'] },
  { name: 'gmx', mx: ['.gmx.net', '.gmx.com', '.web.de', '.kundenserver.de', '.ionos.com'], domains: ['gmx.de', 'gmx.net', 'gmx.com', 'web.de'] },
  { name: 'mailru', mx: ['.mail.ru'], domains: ['mail.ru', 'inbox.ru', 'list.ru', 'bk.ru'] },
  { name: 'yandex', mx: ['.yandex.net', '.yandex.ru'], domains: ['yandex.ru', 'yandex.com', 'ya.ru'] },
  { name: 'fastmail', mx: ['.messagingengine.com'], domains: ['fastmail.com', 'fastmail.fm'] },
];

const normalise = (host: string) => host.toLowerCase().replace(/\.$/, '');

function matchesMx(provider: Provider, host: string): boolean {
  return provider.mx.some((pattern) => (pattern.startsWith('.') ? host.endsWith(pattern) || host === pattern.slice(1) : host === pattern));
}

export class ProviderTable {
  constructor(readonly entries: readonly Provider[] = BUILT_IN_PROVIDERS) {}

  /** The provider of `domain`, by its MX hosts when known, else by the well-known domains; null for none. */
  providerOf(domain: string, mxHosts: readonly string[] = []): string | null {
    const hosts = mxHosts.map(normalise);
    for (const provider of this.entries) {
      if (hosts.some((host) => matchesMx(provider, host))) return provider.name;
    }
    const bare = normalise(domain);
    return this.entries.find((p) => p.domains.includes(bare))?.name ?? null;
  }

  /** Whether `name` is one of the table's providers. */
  has(name: string): boolean {
    return this.entries.some((p) => p.name === name);
  }

  /** The shaping limits of a provider of the table. */
  shapingOf(name: string): ShapingLimits {
    return this.entries.find((p) => p.name === name)?.shaping ?? PROVIDER_SHAPING;
  }
}

/** An operator entry's `shaping` ({connections, messages_per_connection, messages_per_minute}, each optional). */
function shapingOfEntry(value: unknown, i: number): ShapingLimits | undefined {
  if (value === undefined) return undefined;
  const v = value as Record<string, unknown>;
  const count = (key: string, fallback: number | null) => {
    const n = v?.[key] ?? fallback;
    if (n !== null && !(Number.isInteger(n) && (n as number) > 0)) throw new Error(`providers file, entry ${i}: "shaping.${key}" must be a positive integer`);
    return n as number | null;
  };
  if (typeof value !== 'object' || value === null) throw new Error(`providers file, entry ${i}: "shaping" must be an object`);
  return {
    connections: count('connections', PROVIDER_SHAPING.connections)!,
    messagesPerConnection: count('messages_per_connection', PROVIDER_SHAPING.messagesPerConnection)!,
    messagesPerMinute: count('messages_per_minute', null),
  };
}

/**
 * The operator's entries (a JSON array of {name, mx, domains, shaping?}) before the built-in ones;
 * an operator entry with a built-in entry's name replaces it. Throws with the reason on a malformed file.
 */
export function providerTable(operatorEntries: unknown): ProviderTable {
  if (operatorEntries === undefined) return new ProviderTable();
  if (!Array.isArray(operatorEntries)) throw new Error('the providers file must hold a JSON array');
  const own = operatorEntries.map((entry, i): Provider => {
    const e = entry as Partial<Provider>;
    const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
    if (typeof e?.name !== 'string' || !/^[a-z0-9][a-z0-9_-]*$/.test(e.name)) {
      throw new Error(`providers file, entry ${i}: "name" must be a lower-case word`);
    }
    if (!strings(e.mx ?? []) || !strings(e.domains ?? [])) throw new Error(`providers file, entry ${i}: "mx" and "domains" must be arrays of strings`);
    const shaping = shapingOfEntry((entry as { shaping?: unknown }).shaping, i);
    return { name: e.name, mx: (e.mx ?? []).map(normalise), domains: (e.domains ?? []).map(normalise), ...(shaping && { shaping }) };
  });
  const names = new Set(own.map((p) => p.name));
  return new ProviderTable([...own, ...BUILT_IN_PROVIDERS.filter((p) => !names.has(p.name))]);
}
