// One round of blocklist checks, for the whole cluster (watch.ts makes sure one node does each):
// every outbound address of the nodes (blocklist_addresses) asked of each POSTLINE_DNSBLS zone,
// every verified sending domain of each POSTLINE_DOMAIN_BLOCKLISTS zone (answers.ts), through
// the resolver (POSTLINE_DNS_SERVERS) with a fresh cache. Each target's answers are stored in
// one transaction that reads its previous state under lock. Checks of targets and zones no
// longer watched (a domain deleted, a zone taken off the list) are then dropped, and each
// sending domain's listings (its own, and those of the addresses it sends from) are compared
// with what its webhooks were told (blocklist_notices): a listing new to the domain records
// domain.blocklisted, one that ended domain.unblocklisted, in the transaction that updates the
// notices, so each change is recorded once however many rounds or nodes there are.
import type { Db, Queryable } from '../db/database.js';
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';
import { recordEvents } from '../events/record-events.js';
import type { Logger } from '../logger.js';
import { type Outcome, outcomeOf, queryName, type TargetKind } from './answers.js';
import { type CheckRow, checkView, sendingAddresses } from './view.js';

/** Targets asked at once; each asks its zones at once. */
const PARALLEL_TARGETS = 8;
const MAX_REASON = 1_000;

interface RoundOptions {
  db: Db;
  resolver: DnsResolver;
  ipZones: readonly string[];
  domainZones: readonly string[];
  /** Addresses no node has claimed for this long are no longer watched (ms). */
  staleMs: number;
  logger: Logger;
  /** The round gives up between targets once this says so (the node stopping). */
  stopping?: () => boolean;
}

type Answer = Outcome & { txt?: string | null };

interface Target {
  kind: TargetKind;
  target: string;
}

/** A verified sending domain (the domains an event may be about). */
interface SendingDomainRow {
  id: string;
  account_id: string;
  name: string;
  outbound_ips: string[] | null;
}

const SENDING_DOMAINS = `SELECT id, account_id, name, outbound_ips FROM domains
  WHERE status = 'verified' AND sending_enabled AND NOT sandboxed AND NOT placeholder`;

/** Runs one round; the number of targets checked and the events recorded. */
export async function runRound(options: RoundOptions): Promise<{ targets: number; changes: number }> {
  const { db, ipZones, domainZones, staleMs } = options;
  await db.query(`DELETE FROM blocklist_addresses WHERE seen_at < now() - $1 * interval '1 millisecond'`, [staleMs]);
  const addresses = ipZones.length ? (await db.query<{ ip: string }>('SELECT ip FROM blocklist_addresses ORDER BY ip')).map((r) => r.ip) : [];
  const domains = domainZones.length ? [...new Set((await db.query<SendingDomainRow>(SENDING_DOMAINS)).map((d) => d.name))].sort() : [];
  const targets: Target[] = [
    ...addresses.map((target) => ({ kind: 'ip' as const, target })),
    ...domains.map((target) => ({ kind: 'domain' as const, target })),
  ];
  let next = 0;
  const worker = async () => {
    while (next < targets.length && !options.stopping?.()) {
      const t = targets[next++]!;
      const zones = t.kind === 'ip' ? ipZones : domainZones;
      const answers = new Map(await Promise.all(zones.map(async (zone) => [zone, await ask(options.resolver, t, zone)] as const)));
      await db.tx((q) => store(q, t, answers, options.logger));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_TARGETS, targets.length) }, worker));
  if (options.stopping?.()) return { targets: targets.length, changes: 0 };
  const watched = targets.flatMap((t) => (t.kind === 'ip' ? ipZones : domainZones).map((zone) => [t.kind, t.target, zone]));
  await db.query(
    `DELETE FROM blocklist_checks c
      WHERE NOT EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[], $3::text[]) AS w(kind, target, zone)
                         WHERE w.kind = c.kind AND w.target = c.target AND w.zone = c.zone)`,
    [watched.map((w) => w[0]), watched.map((w) => w[1]), watched.map((w) => w[2])],
  );
  return { targets: targets.length, changes: await db.tx((q) => notify(q)) };
}

/** Asks `zone` about one target: its A records, and for a listing its TXT reason. */
async function ask(resolver: DnsResolver, { kind, target }: Target, zone: string): Promise<Answer> {
  const name = queryName(kind, target, zone);
  let outcome: Outcome;
  try {
    outcome = outcomeOf(zone, await resolver.ipv4(name, { fresh: true }));
  } catch (err) {
    if (!(err instanceof DnsTemporaryError)) throw err;
    return { result: 'unknown', error: err.message };
  }
  if (outcome.result !== 'listed') return outcome;
  // The reason is a courtesy of the list: without it the listing stands.
  const txt = await resolver.txt(name, { fresh: true }).catch(() => []);
  return { ...outcome, txt: txt.length ? txt.join('; ').slice(0, MAX_REASON) : null };
}

/** Stores one target's answers under lock, logging each listing that began or ended. */
async function store(q: Queryable, { kind, target }: Target, answers: Map<string, Answer>, logger: Logger): Promise<void> {
  const previous = new Map(
    (await q.query<CheckRow>('SELECT * FROM blocklist_checks WHERE kind = $1 AND target = $2 FOR UPDATE', [kind, target])).map((r) => [r.zone, r]),
  );
  for (const [zone, answer] of answers) {
    const before = previous.get(zone);
    const row = nextState(kind, target, zone, answer, before);
    await q.query(
      `INSERT INTO blocklist_checks (kind, target, zone, listed, result, return_codes, reason, error, first_listed_at, checked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (kind, target, zone) DO UPDATE SET listed = EXCLUDED.listed, result = EXCLUDED.result, return_codes = EXCLUDED.return_codes,
         reason = EXCLUDED.reason, error = EXCLUDED.error, first_listed_at = EXCLUDED.first_listed_at, checked_at = EXCLUDED.checked_at`,
      [kind, target, zone, row.listed, row.result, row.return_codes, row.reason, row.error, row.first_listed_at, row.checked_at],
    );
    const fields = { kind, target, zone, return_codes: row.return_codes, reason: row.reason };
    if (row.listed && !before?.listed) logger.warn(fields, 'blocklisted');
    if (!row.listed && before?.listed) logger.info(fields, 'no longer blocklisted');
    if (answer.result === 'not_possible' && before?.result !== 'not_possible') {
      logger.warn(fields, 'blocklist: the list refused to answer; the check is not possible (not a listing)');
    }
  }
}

/** A blocklist_notices row. */
interface NoticeRow {
  domain_id: string;
  kind: TargetKind;
  target: string;
  zone: string;
}

const keyOf = (c: { kind: string; target: string; zone: string }) => `${c.kind} ${c.target} ${c.zone}`;

/**
 * Records domain.blocklisted / unblocklisted for every difference between each sending domain's
 * listings and its notices, and brings the notices in step; how many events. Under the lock of
 * blocklist_rounds' row, so two rounds (one outlasting the interval) never both record a change.
 * A notice whose check is gone (a zone no longer asked, an address no node has now) or whose
 * domain no longer sends is dropped without an event: nothing was heard of its end.
 */
async function notify(q: Queryable): Promise<number> {
  await q.query('SELECT 1 FROM blocklist_rounds FOR UPDATE');
  const domains = await q.query<SendingDomainRow>(SENDING_DOMAINS);
  const checks = await q.query<CheckRow>('SELECT * FROM blocklist_checks ORDER BY kind DESC, target, zone');
  const byKey = new Map(checks.map((c) => [keyOf(c), c]));
  const known = [...new Set(checks.filter((c) => c.kind === 'ip').map((c) => c.target))];
  const notices = await q.query<NoticeRow>('SELECT domain_id, kind, target, zone FROM blocklist_notices');
  const noticed = new Map<string, Set<string>>();
  for (const n of notices) noticed.set(n.domain_id, (noticed.get(n.domain_id) ?? new Set()).add(keyOf(n)));
  const events = [];
  const added: NoticeRow[] = [];
  const ended: NoticeRow[] = [];
  for (const domain of domains) {
    const from = new Set(sendingAddresses(domain.outbound_ips, known));
    const listings = checks.filter((c) => c.listed && (c.kind === 'ip' ? from.has(c.target) : c.target === domain.name));
    const told = noticed.get(domain.id) ?? new Set<string>();
    noticed.delete(domain.id);
    const current = new Set(listings.map(keyOf));
    const views = listings.map(checkView);
    const event = (type: 'domain.blocklisted' | 'domain.unblocklisted', check: CheckRow) => ({
      accountId: domain.account_id,
      type,
      data: { id: domain.id, name: domain.name, blocklist: checkView(check), listings: views },
    });
    for (const check of listings.filter((c) => !told.has(keyOf(c)))) {
      events.push(event('domain.blocklisted', check));
      added.push({ domain_id: domain.id, kind: check.kind, target: check.target, zone: check.zone });
    }
    for (const key of [...told].filter((k) => !current.has(k))) {
      const [kind, target, zone] = key.split(' ') as [TargetKind, string, string];
      ended.push({ domain_id: domain.id, kind, target, zone });
      const check = byKey.get(key);
      if (check) events.push(event('domain.unblocklisted', check));
    }
  }
  // Domains that no longer send (deleted ones go with their notices).
  for (const [domainId, keys] of noticed) {
    for (const key of keys) {
      const [kind, target, zone] = key.split(' ') as [TargetKind, string, string];
      ended.push({ domain_id: domainId, kind, target, zone });
    }
  }
  const columns = (rows: NoticeRow[]) => [rows.map((r) => r.domain_id), rows.map((r) => r.kind), rows.map((r) => r.target), rows.map((r) => r.zone)];
  if (added.length) {
    await q.query(
      'INSERT INTO blocklist_notices (domain_id, kind, target, zone) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])',
      columns(added),
    );
  }
  if (ended.length) {
    await q.query(
      `DELETE FROM blocklist_notices n USING unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS e(domain_id, kind, target, zone)
        WHERE n.domain_id = e.domain_id AND n.kind = e.kind AND n.target = e.target AND n.zone = e.zone`,
      columns(ended),
    );
  }
  await recordEvents(q, events);
  return events.length;
}

/**
 * A check's row after an answer: a listing or NXDOMAIN sets the state (listed), a refusal
 * (not_possible) or no answer (unknown) keeps it, with what the list said or why it did not.
 */
function nextState(kind: TargetKind, target: string, zone: string, answer: Answer, before: CheckRow | undefined): CheckRow {
  const now = new Date();
  const kept = { listed: before?.listed ?? false, first_listed_at: before?.first_listed_at ?? null };
  const base = { kind, target, zone, checked_at: now };
  switch (answer.result) {
    case 'listed':
      return {
        ...base,
        listed: true,
        result: 'listed',
        return_codes: answer.codes,
        reason: answer.txt ?? null,
        error: null,
        first_listed_at: before?.listed ? before.first_listed_at : now,
      };
    case 'not_listed':
      return { ...base, listed: false, result: 'not_listed', return_codes: [], reason: null, error: null, first_listed_at: null };
    case 'not_possible':
      return { ...base, ...kept, result: 'not_possible', return_codes: answer.codes, reason: answer.reason, error: null };
    case 'unknown':
      return {
        ...base,
        ...kept,
        result: 'unknown',
        return_codes: before?.return_codes ?? [],
        reason: before?.reason ?? null,
        error: answer.error,
      };
  }
}
