// `postline queue …`: the queue's API on the command line, against the database of a running
// server (like `postline accounts`), for one account: given with --account, or the only one.
// `postline queue` alone prints the summary as tables; --json prints what the API answers.
import { parseArgs } from 'node:util';
import { ApiError } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Db } from '../db/database.js';
import type { ProviderTable } from '../providers/providers.js';
import type { StsView } from '../tls-policy/mta-sts-cache.js';
import { destinationMessages } from './destination-messages.js';
import { domainsOf, parseDestination } from './destinations.js';
import { pauseDestination, resumeDestination } from './pauses.js';
import { failDeliveries, retryNow, type Selection } from './repair.js';
import { type QueueState, QUEUE_STATES } from './states.js';
import { type DestinationSummary, queueSummary } from './summary.js';

export const QUEUE_USAGE = `  postline queue [--limit N] [--provider NAME]     what waits, per destination and state
  postline queue list DESTINATION [--state S] [--limit N] [--after ID]
                                                  one destination's messages, oldest first
  postline queue retry (DESTINATION | --email ID) try deferred mail now
  postline queue fail (DESTINATION | --email ID) --reason TEXT
                                                  give it up: email.failed with the reason
  postline queue pause DESTINATION --reason TEXT  hold a domain's or a provider's mail
  postline queue resume DESTINATION               let it go again
    each takes --account ID (needed when there are several accounts) and --json`;

/** A mistake in the command line: main prints the message and the usage, without a stack. */
export class QueueCommandError extends Error {}

const OPTIONS = {
  account: { type: 'string' },
  limit: { type: 'string' },
  provider: { type: 'string' },
  state: { type: 'string' },
  after: { type: 'string' },
  email: { type: 'string' },
  reason: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function runQueueCommand(db: Db, providers: ProviderTable, argv: string[], out: (text: string) => void): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (err) {
    throw new QueueCommandError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [action = 'summary', target, ...extra] = positionals;
  if (extra.length > 0) throw new QueueCommandError(`unexpected "${extra.join(' ')}"`);
  const accountId = await accountOf(db, values.account);
  const limit = (fallback: number, max: number) => {
    if (values.limit === undefined) return fallback;
    const n = Number(values.limit);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new QueueCommandError(`--limit must be a number from 1 to ${max}`);
    return n;
  };
  const print = (json: unknown, text: () => string) => out(values.json ? `${JSON.stringify(json, null, 2)}\n` : text());
  const destination = () => {
    if (!target) throw new QueueCommandError(`queue ${action} needs a destination (a domain or a provider)`);
    return parseDestination(target, providers);
  };
  const selection = async (): Promise<Selection> => {
    if (values.email !== undefined) {
      if (target) throw new QueueCommandError('give a destination or --email, not both');
      const [email] = isUuid(values.email) ? await db.query(`SELECT id FROM emails WHERE id = $1 AND account_id = $2`, [values.email, accountId]) : [];
      if (!email) throw new QueueCommandError(`no email ${values.email} in this account`);
      return { accountId, emailId: values.email };
    }
    return { accountId, domains: await domainsOf(db, accountId, destination(), providers) };
  };
  const reason = () => {
    const text = values.reason?.trim();
    if (!text || /[\r\n\0]/.test(text)) throw new QueueCommandError(`queue ${action} needs --reason TEXT (one line)`);
    return text;
  };

  try {
    switch (action) {
      case 'summary': {
        if (target) throw new QueueCommandError(`unknown queue command "${target}"`);
        const summary = await queueSummary(db, accountId, providers, { limit: limit(50, 1000), provider: values.provider?.toLowerCase() });
        return print(summary, () => summaryText(summary));
      }
      case 'list': {
        const state = values.state as QueueState | undefined;
        if (state !== undefined && !QUEUE_STATES.includes(state)) throw new QueueCommandError(`--state must be one of ${QUEUE_STATES.join(', ')}`);
        if (values.after !== undefined && !/^\d{1,18}$/.test(values.after)) throw new QueueCommandError('--after must be the id of a listed message');
        const page = await destinationMessages(db, accountId, await domainsOf(db, accountId, destination(), providers), {
          limit: limit(20, 100),
          after: values.after,
          state,
        });
        return print(page, () => {
          const rows = page.data.map((m) => [
            m.id,
            m.email_id,
            m.recipient,
            m.state,
            String(m.attempts),
            m.next_attempt_at ?? '—',
            m.last_attempt ? `${m.last_attempt.mx_host ?? '—'} ${m.last_attempt.reply}` : (m.paused_reason ?? '—'),
          ]);
          const more = page.has_more ? `more: --after ${page.data.at(-1)!.id}\n` : '';
          return table(['ID', 'EMAIL', 'RECIPIENT', 'STATE', 'ATTEMPTS', 'NEXT ATTEMPT', 'LAST ATTEMPT'], rows) + more + stsText(page.mta_sts);
        });
      }
      case 'retry': {
        const retried = await retryNow(db, await selection());
        return print({ retried }, () => `${retried} made due now\n`);
      }
      case 'fail': {
        const why = reason();
        const failed = await failDeliveries(db, await selection(), why);
        return print({ failed }, () => `${failed} failed: ${why}\n`);
      }
      case 'pause': {
        const { pause, parked } = await pauseDestination(db, accountId, destination(), reason(), providers);
        return print(
          { destination: pause.name, kind: pause.kind, reason: pause.reason, parked },
          () => `${pause.kind} ${pause.name} paused (${parked} waiting now): ${pause.reason}\n`,
        );
      }
      case 'resume': {
        const resumed = await resumeDestination(db, accountId, destination());
        if (!resumed) throw new QueueCommandError(`${target} is not paused`);
        return print({ destination: resumed.pause.name, resumed: resumed.resumed }, () => `${resumed.pause.name} resumed (${resumed.resumed} due now)\n`);
      }
      default:
        throw new QueueCommandError(`unknown queue command "${action}"`);
    }
  } catch (err) {
    if (err instanceof ApiError) throw new QueueCommandError(err.message);
    throw err;
  }
}

interface AccountRow {
  id: string;
  name: string;
}

async function accountOf(db: Db, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    const [row] = isUuid(given) ? await db.query<Pick<AccountRow, 'id'>>(`SELECT id FROM accounts WHERE id = $1`, [given]) : [];
    if (!row) throw new QueueCommandError(`no account ${given}`);
    return row.id;
  }
  const accounts = await db.query<AccountRow>(`SELECT id, name FROM accounts ORDER BY created_at LIMIT 11`);
  if (accounts.length === 1) return accounts[0]!.id;
  if (accounts.length === 0) throw new QueueCommandError('there is no account yet');
  throw new QueueCommandError(`several accounts: give --account ID, one of\n${accounts.map((a) => `  ${a.id}  ${a.name}`).join('\n')}`);
}

function summaryText(s: Awaited<ReturnType<typeof queueSummary>>): string {
  let text = s.total === 0 ? 'The queue is empty: everything accepted has been delivered or has failed.\n' : waitingText(s);
  // Pauses show even with nothing waiting: mail sent later will wait for them.
  if (s.pauses.length > 0)
    text += `\n${table(
      ['PAUSED', 'KIND', 'MAIL FROM', 'SINCE', 'REASON'],
      s.pauses.map((p) => [p.destination, p.kind, p.sending_domain ?? 'all', p.since, p.reason]),
    )}`;
  if (s.outbound_ips.length > 0)
    text += `\n${table(
      ['OUTBOUND IP', 'WARM-UP', 'DAY', 'CAP/PROVIDER', 'NEXT DAY', 'SENT TODAY'],
      s.outbound_ips.map((w) => [
        w.ip,
        w.status.replace('_', ' '),
        `${w.day} of ${w.days}`,
        w.per_provider_daily === null ? 'none' : String(w.per_provider_daily),
        w.next_day_at ?? '—',
        w.today.map((p) => `${p.provider} ${p.sent} (${p.remaining} left)`).join(', ') || '—',
      ]),
    )}`;
  if (s.shaping.length === 0) return text;
  return `${text}\n${table(
    ['SHAPING', 'STATE', 'RATE/MIN', 'LIMIT/MIN', 'SENT LAST MIN', 'LAST SLOW-DOWN REPLY'],
    s.shaping.map((r) => [
      r.destination,
      r.state,
      r.rate_per_minute === null ? 'none' : String(r.rate_per_minute),
      r.limit_per_minute === null ? 'none' : String(r.limit_per_minute),
      String(r.sent_last_minute),
      r.last_signal ? `${r.last_signal.at} ${r.last_signal.reply}` : '—',
    ]),
  )}`;
}

function waitingText(s: Awaited<ReturnType<typeof queueSummary>>): string {
  const counts = (c: DestinationSummary['counts']) => QUEUE_STATES.map((state) => String(c[state]));
  const states = QUEUE_STATES.map((state) => state.replace('_', ' ').toUpperCase());
  let text = `${s.total} waiting (${QUEUE_STATES.map((state) => `${s.counts[state]} ${state.replace('_', ' ')}`).join(', ')}); oldest ${age(s.oldest_age_seconds ?? 0)}\n\n`;
  text += table(
    ['DESTINATION', 'PROVIDER', ...states, 'OLDEST', 'LAST REPLY'],
    s.destinations.map((d) => [
      d.paused ? `${d.domain} (paused)` : d.domain,
      d.provider ?? '—',
      ...counts(d.counts),
      age(d.oldest_age_seconds),
      d.last_reply ? `${d.last_reply.mx_host ?? ''} ${d.last_reply.reply}`.trim() : '—',
    ]),
  );
  if (s.has_more) text += `… and ${s.destinations_total - s.destinations.length} more destinations (--limit)\n`;
  if (s.providers.length > 0) {
    text += `\n${table(
      ['PROVIDER', 'DOMAINS', ...states, 'OLDEST'],
      s.providers.map((p) => [p.paused ? `${p.provider} (paused)` : p.provider, String(p.domains), ...counts(p.counts), age(p.oldest_age_seconds)]),
    )}`;
  }
  return text;
}

/** 42s, 5m, 3h12m, 2d4h. */
/** The destination's MTA-STS policies, under its messages. */
function stsText(policies: StsView[]): string {
  if (policies.length === 0) return '';
  const rows = policies.map((p) => [
    p.domain,
    p.policy ? `${p.policy.mode} (id ${p.policy.id}) mx ${p.policy.mx.join(' ') || '—'}` : 'none',
    p.policy ? `${p.policy.fetched_at} → ${p.policy.expires_at}` : '—',
    p.checked_at ?? '—',
    p.last_error ?? '—',
  ]);
  return `\nMTA-STS\n${table(['DOMAIN', 'POLICY', 'FETCHED → EXPIRES', 'CHECKED', 'LAST ERROR'], rows)}`;
}

function age(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(seconds / 86_400)}d${Math.floor((seconds % 86_400) / 3600)}h`;
}

/** Columns padded to their widest cell; the last one runs on (replies are long). */
function table(header: string[], rows: string[][]): string {
  const MAX_LAST = 100;
  const all = [header, ...rows.map((r) => r.map((cell, i) => (i === r.length - 1 && cell.length > MAX_LAST ? `${cell.slice(0, MAX_LAST - 1)}…` : cell)))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return `${all.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n')}\n`;
}
