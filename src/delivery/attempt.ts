// One delivery attempt: one email to its recipients at one domain, as a list of steps:
//   simulate test addresses → route → paused? → transport policy: which hosts, with what TLS
//   (tls-policy/policy.ts) → shaping: may it go now? → warm-up: how many
//   may go today (the rest wait for the next day), from which outbound IP (one with room under
//   its own warm-up cap) → wait for a connection slot → connect (first reachable target) → transmit → read the replies, from
//   which the shaper learns whether the destination wants us slower.
// Each step either moves on or ends the attempt with a verdict for every recipient still in
// play; nothing here writes to the database (outcomes.ts records the verdicts) but the
// warm-up count (warmup/warmup-gate.ts). It throws only before any message is sent, so the
// worker may give a failed attempt's rows back at once.
import addressparser from 'nodemailer/lib/addressparser';
import type { Logger } from '../logger.js';
import type { ProviderTable, ShapingLimits } from '../providers/providers.js';
import { isBlocklisted } from './bounce-classes.js';
import { bounceOf, LOCAL_REPLIES, parseReply } from './bounce-codes.js';
import type { ClaimedDelivery, ClaimedEmail } from '../queue/claim.js';
import type { DeliveryJob } from './jobs.js';
import type { DeliveryLimits } from './limits.js';
import type { ActivePauses, Pause } from '../queue/pauses.js';
import type { OutboundIps } from './outbound-ips.js';
import type { Outcome, Verdict } from './outcomes.js';
import type { Router, Target } from './route.js';
import { shapingSignal } from '../metrics/record.js';
import { isThrottleReply, type TrafficShaper } from './shaping.js';
import { ConnectError, describe, type SendResult, type SmtpPool, type SmtpSession } from './smtp-pool.js';
import { simulatedVerdict } from './test-addresses.js';
import type { TransportPolicy } from '../tls-policy/policy.js';
import { describeRequirement } from '../tls-policy/requirement.js';
import { isBulkMail } from '../warmup/bulk-mail.js';
import type { IpWarmupGate } from '../warmup/ip-warmup.js';
import type { WarmupGate } from '../warmup/warmup-gate.js';

export interface AttemptDeps {
  router: Router;
  /** The sender's and the recipient's TLS promises (tls-policy/); undefined for the sandbox's catcher, on this machine. */
  transportPolicy: TransportPolicy | undefined;
  pool: SmtpPool;
  limits: DeliveryLimits;
  /** Asked right before connecting: false when the worker is stopping or the lease is nearly over. */
  mayStart(job: DeliveryJob): boolean;
  /** Destinations operators paused (queue/pauses.ts). */
  pauses: ActivePauses;
  shaping: {
    shaper: TrafficShaper;
    providers: ProviderTable;
    /** Limits of an MX host of no known provider (and of the relay). */
    otherLimits: ShapingLimits;
    /** false (POSTLINE_SHAPING=false): only the connection limits apply. */
    enabled: boolean;
  };
  /** The sending domains' warm-up caps per provider. */
  warmup: WarmupGate;
  /** The outbound IPs' warm-up caps per provider, when POSTLINE_OUTBOUND_IPS lists several. */
  ipWarmup: IpWarmupGate;
  /** POSTLINE_OUTBOUND_IPS: the local address each connection leaves from. */
  outboundIps: OutboundIps;
  logger: Logger;
}

export interface AttemptResult {
  outcomes: Outcome[];
  /** Rows claimed but not tried (the worker gives them back). */
  notTried: ClaimedDelivery[];
  /** Rows not tried because their destination is paused (the worker parks them). */
  paused?: { pause: Pause; rows: ClaimedDelivery[] };
  /** The domain's MX hosts as routed (none through the relay): its provider, for the metrics (count-outcomes.ts). */
  mxHosts?: string[];
  /**
   * Rows the shaper or a warm-up holds back: the worker gives them back due at `until`; `warmup`:
   * held by the domain's or the outbound IPs' warm-up, which the email's first such hold records
   * as email.delivery_delayed (queue/warmup-release.ts).
   */
  waiting?: { rows: ClaimedDelivery[]; until: Date; reason: string; warmup?: true };
  /** A reply saying the sending IP or domain is on a blocklist: the worker pauses the destination. */
  blocked?: { destination: { kind: 'provider' | 'domain'; name: string }; reply: string };
}

export async function attemptDelivery(job: DeliveryJob, deps: AttemptDeps): Promise<AttemptResult> {
  const { simulated, real } = simulateTestAddresses(job.recipients);
  if (real.length === 0) return { outcomes: simulated, notTried: [] };
  const route = await deps.router.route(job.domain);
  const mxHosts = route.ok ? route.mxHosts : undefined;
  const done = (verdicts: Outcome[]) => ({ outcomes: [...simulated, ...verdicts], notTried: [], mxHosts });
  const pause = await deps.pauses.find(job.recipients[0]!.pausesVersion, job.email.accountId, sendingDomain(job.email), job.domain, mxHosts ?? []);
  if (pause) return { outcomes: simulated, notTried: [], paused: { pause, rows: real } };
  if (!route.ok) return done(all(real, route.permanent ? bounced(route.response) : deferred(route.response)));
  const policy = deps.transportPolicy ? await deps.transportPolicy.apply(job.domain, job.email.tls, route) : route;
  if (!policy.ok) return done(all(real, deferred(`451 4.7.5 ${policy.reason}`)));

  const { targets } = policy;
  const { destination, provider, limits } = shapingOf(job.domain, route.key, mxHosts, deps);
  if (deps.shaping.enabled) {
    const slot = deps.shaping.shaper.take(destination, limits, real.length, job.email.broadcastId ? 1 : 0);
    if (!slot.go) return { outcomes: simulated, notTried: [], mxHosts, waiting: { rows: real, until: slot.until, reason: slot.reason } };
  }
  // Counted here, when the mail is about to go: after shaping, so mail that waits for its rate is not counted twice.
  // Bulk mail (warmup/bulk-mail.ts) is what warm-up holds; its headers are read only when a warm-up may hold it.
  const bulk = job.email.broadcastId !== null || ((job.email.warmup !== null || deps.ipWarmup.active) && provider !== null && isBulkMail(job.email));
  const admitted = await deps.warmup.admit(job.email.warmup, provider, real.length, bulk);
  const allowed = real.slice(0, admitted.granted);
  let waiting: AttemptResult['waiting'] = admitted.held && { rows: real.slice(admitted.granted), ...admitted.held, warmup: true };
  // The outbound IP it leaves from, one with room under its own warm-up cap (warmup/ip-warmup.ts).
  // Transactional mail is held only for a domain that caps it (`warmup.cap_transactional`).
  const capped = bulk || job.email.capTransactional;
  const fromIp =
    allowed.length > 0 ? await deps.ipWarmup.admit(deps.outboundIps.order(job.email.outboundIps), provider, allowed.length, { capped, bulk }) : undefined;
  const sending = allowed.slice(0, fromIp?.granted ?? 0);
  const overIp = allowed.slice(sending.length);
  // Every address at its cap: the rest waits for the first next day (after the domain's, when that holds mail too).
  if (fromIp?.held) {
    const { until, reason } = waiting && waiting.until > fromIp.held.until ? waiting : fromIp.held;
    waiting = { rows: [...(waiting?.rows ?? []), ...overIp], until, reason, warmup: true };
  }
  // Some went from an address that then reached its cap: the rest goes again at once, from another one.
  const retryNow = fromIp?.held ? [] : overIp;
  // Never throws: once mail has gone, its result must reach the outcome writer (or it would be
  // sent again); a count not given back only brings the day's cap a little closer.
  const giveBack = async (result: AttemptResult) => {
    const unsentFromIp = result.notTried.length + result.outcomes.filter((o) => o.verdict.kind === 'deferred').length;
    try {
      if (admitted.counted && unsentFromIp + overIp.length > 0) await deps.warmup.giveBack(admitted.counted, unsentFromIp + overIp.length);
      if (fromIp?.counted && unsentFromIp > 0) await deps.ipWarmup.giveBack(fromIp.counted, unsentFromIp);
    } catch (err) {
      deps.logger.warn({ err, email: job.email.id }, 'giving back unused warm-up counts failed');
    }
  };
  if (sending.length === 0) {
    if (deps.shaping.enabled) deps.shaping.shaper.sending(destination, limits, 0);
    const result = { outcomes: simulated, notTried: retryNow, mxHosts, waiting };
    await giveBack({ ...result, notTried: [] });
    return result;
  }
  const result = await transmit();
  await giveBack(result);
  return { ...result, notTried: [...result.notTried, ...retryNow] };

  /** Steps 5 and 6: wait for a connection slot, connect, send the admitted recipients. */
  async function transmit(): Promise<AttemptResult> {
    const release = await deps.limits.acquire(destination, limits.connections);
    try {
      if (!deps.mayStart(job)) return { outcomes: simulated, notTried: sending, waiting };
      const connected = await connect(targets, deps.pool, fromIp?.ip);
      if (!connected.session) return learn(done(all(sending, deferred(connected.response), targets[0]?.host)));

      // The shaper counts the messages from now, when the destination sees them (not from when it let them through).
      if (deps.shaping.enabled) deps.shaping.shaper.sending(destination, limits, sending.length);
      // The worker composes a deferred email's message before it starts the attempt (worker.ts).
      const sent = await connected.session.send(
        envelopeSender(job.email),
        sending.map((r) => r.recipient),
        job.email.mime!,
      );
      deps.pool.release(connected.session, limits.messagesPerConnection);
      const tls = { protocol: connected.session.tls.protocol, requirement: describeRequirement(connected.target.tls) };
      return learn(done(readReplies(sending, sent, connected.target).map((outcome) => ({ ...outcome, tls }))));
    } finally {
      release();
    }
  }

  /** Step 7: the shaper learns from the replies; a blocklisting reply is reported for a pause. */
  function learn(result: AttemptResult): AttemptResult {
    let blocked: AttemptResult['blocked'];
    for (const { verdict } of result.outcomes) {
      if (verdict.kind === 'deferred' && isThrottleReply(verdict.response)) {
        shapingSignal(provider);
        if (deps.shaping.enabled) deps.shaping.shaper.throttled(destination, limits, verdict.response);
      }
      if (verdict.kind === 'bounced' && isBlocklisted(verdict.response)) {
        blocked = { destination: provider ? { kind: 'provider', name: provider } : { kind: 'domain', name: job.domain }, reply: verdict.response };
      }
    }
    return { ...result, ...(waiting && { waiting }), ...(blocked && { blocked }) };
  }
}

/** Step 3: what the job is shaped as: its provider (by MX hosts), else its MX hosts as operators read them, else the route (the relay). */
function shapingOf(domain: string, routeKey: string, mxHosts: string[] | undefined, deps: AttemptDeps) {
  const { providers, otherLimits } = deps.shaping;
  const provider = mxHosts ? providers.providerOf(domain, mxHosts) : null;
  if (provider) return { destination: provider, provider, limits: providers.shapingOf(provider) };
  return { destination: mxHosts?.length ? [...mxHosts].sort().join(',') : routeKey, provider, limits: otherLimits };
}

/** Step 1: recipients at resend.dev's test addresses get their verdict without a connection. */
function simulateTestAddresses(recipients: ClaimedDelivery[]): { simulated: Outcome[]; real: ClaimedDelivery[] } {
  const simulated: Outcome[] = [];
  const real: ClaimedDelivery[] = [];
  for (const delivery of recipients) {
    const verdict = simulatedVerdict(delivery.recipient);
    if (verdict) simulated.push({ delivery, verdict });
    else real.push(delivery);
  }
  return { simulated, real };
}

/**
 * Step 4: the first target (MX by preference, then its addresses) that opens a session, and
 * that target: a pooled session may have been opened for another host at the same address.
 */
async function connect(
  targets: Target[],
  pool: SmtpPool,
  localAddress: string | undefined,
): Promise<{ session: SmtpSession; target: Target; response?: never } | { session?: never; target?: never; response: string }> {
  const failures: string[] = [];
  let tlsRefused = false;
  for (const target of targets) {
    try {
      return { session: await pool.acquire(target, localAddress), target };
    } catch (err) {
      if (!(err instanceof ConnectError)) throw err;
      failures.push(err.message);
      tlsRefused ||= err.tls;
    }
  }
  // 4.7.5: a host was reached but failed the TLS the mail requires (RFC 3463 "cryptographic failure").
  return { response: `451 ${tlsRefused ? '4.7.5 No host met the TLS requirement' : '4.4.1 No host could be reached'}: ${failures.join('; ')}` };
}

/**
 * MAIL FROM: the return path the accept pipeline chose; for an email without one, a bounce
 * address on the From domain.
 */
function envelopeSender(email: ClaimedEmail): string {
  return email.envelopeFrom ?? `bounces@${fromDomain(email)}`;
}

/** The domain the email is sent from: its verified domain, else its From address's. */
export function sendingDomain(email: ClaimedEmail): string {
  return email.domainName ?? fromDomain(email);
}

/** The domain of the email's From address (`Name <a@example.com>` → example.com). */
function fromDomain(email: ClaimedEmail): string {
  const parsed = addressparser(email.fromAddress, { flatten: true })[0];
  return parsed?.address?.split('@').pop() ?? '';
}

/** Step 6: each recipient's verdict from the replies to RCPT TO and to the end of DATA. */
function readReplies(recipients: ClaimedDelivery[], result: SendResult, target: Target): Outcome[] {
  if (result.ok) {
    const refused = new Map((result.info.rejectedErrors ?? []).map((e) => [(e as { recipient?: string }).recipient, e.response]));
    return recipients.map((delivery) => {
      const refusal = refused.get(delivery.recipient);
      return { delivery, verdict: refusal ? verdictOfReply(refusal) : { kind: 'delivered', response: result.info.response }, mx: target.host };
    });
  }
  const err = result.error;
  if (err.rejectedErrors?.length) {
    // Every recipient was refused at RCPT TO, each with its own reply.
    const refused = new Map(err.rejectedErrors.map((e) => [(e as { recipient?: string }).recipient, e.response]));
    return recipients.map((delivery) => ({ delivery, verdict: verdictOfReply(refused.get(delivery.recipient) ?? err.response ?? ''), mx: target.host }));
  }
  if (err.responseCode && err.response) return all(recipients, verdictOfReply(err.response), target.host);
  if (err.code === 'EMESSAGE' && /larger than allowed/i.test(err.message)) {
    // The server announced a SIZE limit below the message: nodemailer refuses to send it.
    return all(recipients, bounced(LOCAL_REPLIES.messageTooLarge(`${err.message.replace(/^.*allowed\s*/i, '')} bytes`)), target.host);
  }
  return all(recipients, deferred(`451 4.4.2 ${describe(target)}: ${err.message}`), target.host);
}

function verdictOfReply(raw: string): Verdict {
  const reply = parseReply(raw);
  if (reply.code >= 200 && reply.code < 300) return { kind: 'delivered', response: reply.raw };
  if (reply.code >= 500) return { kind: 'bounced', response: reply.raw, bounce: bounceOf(reply) };
  return { kind: 'deferred', response: reply.raw || raw };
}

function bounced(raw: string): Verdict {
  const reply = parseReply(raw);
  return { kind: 'bounced', response: reply.raw, bounce: bounceOf(reply) };
}

function deferred(response: string): Verdict {
  return { kind: 'deferred', response };
}

function all(recipients: ClaimedDelivery[], verdict: Verdict, mx?: string): Outcome[] {
  return recipients.map((delivery) => ({ delivery, verdict, mx }));
}
