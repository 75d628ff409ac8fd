// The readers of the operator contract's values (config.ts SETTINGS): each turns a variable's
// raw text into its typed value or throws a ConfigError naming the variable.
import net from 'node:net';
import { asRange, isAddressRange } from './egress/address-ranges.js';
import type { PrivateAccess } from './egress/destination-policy.js';

export class ConfigError extends Error {}

/**
 * Reads one variable's raw value (undefined when unset) into its typed value; throws ConfigError
 * naming it. A reader with a fixed default carries it as `shown`, for the README's table.
 */
export type Read<T> = ((raw: string | undefined, name: string, env: NodeJS.ProcessEnv) => T) & { shown?: string };

/** `read`, showing `fallback` as its default. */
const defaulting = <T>(read: Read<T>, fallback: unknown): Read<T> => Object.assign(read, { shown: `\`${fallback}\`` });

export const unset = (raw: string | undefined) => raw === undefined || raw.trim() === '';

export function integer(fallback: number, min = 0): Read<number> {
  return defaulting((raw, name) => {
    if (unset(raw)) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
    return n;
  }, fallback);
}

export function bool(fallback: () => boolean): Read<boolean> {
  return (raw, name) => {
    const value = (raw ?? '').trim().toLowerCase();
    if (value === '') return fallback();
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  };
}

/** A string; unset: `fallback` (a function when the default is the machine's, e.g. its host name). */
export function text(fallback: string | (() => string)): Read<string> {
  if (typeof fallback === 'string') return defaulting((raw) => (unset(raw) ? fallback : raw!.trim()), fallback);
  return (raw) => (unset(raw) ? fallback() : raw!.trim());
}

export const optionalText: Read<string | undefined> = (raw) => (unset(raw) ? undefined : raw!.trim());

/** A bare address (`name@example.com`), lower-cased; unset: undefined. */
export const emailAddress: Read<string | undefined> = (raw, name) => {
  if (unset(raw)) return undefined;
  const address = raw!.trim().toLowerCase();
  if (!/^[^\s@<>]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+$/.test(address)) throw new ConfigError(`${name} must be an address like reports@example.com, got "${raw}"`);
  return address;
};

/** Comma-separated ports; unset: the fallback; empty: none; 0: a random free port (tests). */
export function portList(fallback: number[]): Read<number[]> {
  return defaulting((raw, name) => {
    if (raw === undefined) return fallback;
    if (raw.trim() === '') return [];
    return raw.split(',').map((part) => {
      const n = Number(part.trim());
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name}: "${part}" is not a port`);
      return n;
    });
  }, fallback.join(','));
}

export function url(protocols: string[]): Read<string | undefined> {
  return (raw, name) => {
    if (unset(raw)) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw!);
    } catch {
      throw new ConfigError(`${name} is not a URL`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
    }
    return raw!;
  };
}

/** Durations such as "3d", "12h", "30m", "45s" or a number of seconds. */
function parseDuration(raw: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name}: "${raw}" is not a duration like 3d, 12h, 30m or 45s`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 's']!;
  return Number(match[1]) * unit;
}

/** Node runs a timer longer than 2^31 − 1 ms (~24.8 days) at once: no timeout may be longer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration that becomes a timer: more than 0 and at most MAX_TIMER_MS. */
export function timeout(fallback: string): Read<number> {
  return defaulting((raw, name) => {
    const ms = parseDuration(unset(raw) ? fallback : raw!, name);
    if (ms <= 0 || ms > MAX_TIMER_MS) throw new ConfigError(`${name} must be longer than 0 and at most 24 days, got "${raw}"`);
    return ms;
  }, fallback);
}

export function duration(fallback: string): Read<number> {
  return defaulting((raw, name) => parseDuration(unset(raw) ? fallback : raw!, name), fallback);
}

/** An optional duration > 0; unset: undefined. */
export const optionalPositiveDuration: Read<number | undefined> = (raw, name) => {
  if (unset(raw)) return undefined;
  const ms = parseDuration(raw!, name);
  if (ms <= 0) throw new ConfigError(`${name} must be longer than 0`);
  return ms;
};

/** A comma-separated list of durations, at least one, each > 0. */
export function durationList(fallback: string): Read<number[]> {
  return defaulting((raw, name) => {
    const list = (unset(raw) ? fallback : raw!).split(',').map((part) => parseDuration(part, name));
    if (list.some((ms) => ms <= 0)) throw new ConfigError(`${name}: every delay must be > 0`);
    return list;
  }, fallback);
}

/**
 * POSTLINE_TRUST_PROXY: unset or false: the TCP peer is the client; true: every proxy is
 * trusted; a number: that many hops; otherwise addresses and CIDR ranges (comma-separated,
 * or proxy-addr's names loopback, linklocal, uniquelocal).
 */
export const trustProxy: Read<boolean | number | string> = (raw, name) => {
  const value = (raw ?? '').trim();
  if (value === '' || /^(false|no|off|0)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim());
  const address = /^(loopback|linklocal|uniquelocal|[0-9a-f.:]+(\/\d{1,3})?)$/i;
  const bad = entries.find((e) => !address.test(e));
  if (bad !== undefined) throw new ConfigError(`${name}: "${bad}" is not an address, a CIDR range, loopback, linklocal or uniquelocal`);
  return entries.join(',');
};

/**
 * Which non-public addresses a tenant's URLs may reach: unset or false: none; true: every
 * one (closed networks, tests); otherwise addresses and CIDR ranges, comma-separated.
 */
export const privateAccess: Read<PrivateAccess> = (raw, name) => {
  const value = (raw ?? '').trim();
  if (value === '' || /^(false|no|off|0)$/i.test(value)) return false;
  if (/^(true|yes|on|1)$/i.test(value)) return true;
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isAddressRange(e));
  if (bad !== undefined) throw new ConfigError(`${name}: "${bad}" is neither true, false, an address nor a CIDR range`);
  return entries.map(asRange);
};

/** One of `values` (any case); unset: `fallback()`. */
export function oneOf<T extends string>(values: readonly T[], fallback: () => T): Read<T> {
  return (raw, name) => {
    const value = (raw ?? '').trim().toLowerCase();
    if (value === '') return fallback();
    if ((values as readonly string[]).includes(value)) return value as T;
    throw new ConfigError(`${name} must be ${values.join(' or ')}, got "${raw}"`);
  };
}

/** Comma-separated IP addresses (v4 or v6); unset or empty: none. */
export const ipList: Read<string[]> = (raw, name, env) => {
  const ips = list(raw, name, env);
  const bad = ips.find((ip) => net.isIP(ip) === 0);
  if (bad !== undefined) throw new ConfigError(`${name}: "${bad}" is not an IP address`);
  return ips;
};

export const list: Read<string[]> = (raw) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** DNS zones, comma-separated; unset: `fallback`; empty: none. */
export function zoneList(fallback: string[]): Read<string[]> {
  const read: Read<string[]> = (raw, name, env) => {
    if (raw === undefined) return fallback;
    const zones = list(raw, name, env).map((zone) => zone.toLowerCase().replace(/\.$/, ''));
    const bad = zones.find((zone) => !/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(zone));
    if (bad !== undefined) throw new ConfigError(`${name}: "${bad}" is not a DNS zone`);
    return zones;
  };
  return Object.assign(read, { shown: `\`${fallback.join(',')}\`` });
}
