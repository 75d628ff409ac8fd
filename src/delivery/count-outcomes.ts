// Delivery outcomes as the metrics count them (metrics/record.ts), once the outcome writer has
// committed them: one per recipient, by outcome and by the mailbox provider the recipient's
// domain rolls up to by its MX hosts (providers/providers.ts), never by domain, so the series
// stay few. The provider comes from the domain's MX records, not from the host an attempt
// reached: pooled connections are shared by every host name at one address.
import { deliveryOutcome, isRecording, type DeliveryOutcome } from '../metrics/record.js';
import type { ProviderTable } from '../providers/providers.js';
import type { Outcome, Verdict } from './outcomes.js';

const OUTCOME_OF: Record<Verdict['kind'], DeliveryOutcome> = {
  delivered: 'delivered',
  complained: 'delivered', // delivered, then reported (a resend.dev test address)
  deferred: 'deferred',
  bounced: 'bounced',
  failed: 'failed',
  suppressed: 'suppressed',
};

/** Domains whose provider is remembered: a busy worker sends to the same ones again and again. */
const MAX_REMEMBERED = 10_000;

export class OutcomeCounter {
  private byDomain = new Map<string, string | null>();

  constructor(private providers: ProviderTable) {}

  /** Counts the outcomes of one attempt (one email, one domain); `mxHosts`: the domain's, when it was routed. */
  count(domain: string, outcomes: Outcome[], mxHosts?: string[]): void {
    if (outcomes.length === 0 || !isRecording()) return;
    const provider = this.providerOf(domain, mxHosts);
    for (const o of outcomes) deliveryOutcome(OUTCOME_OF[o.verdict.kind], provider, o.delivery.email.queuedSince);
  }

  /** Remembered only when known by MX hosts: a domain first seen unrouted (DNS failing) is asked again next time. */
  private providerOf(domain: string, mxHosts: string[] | undefined): string | null {
    if (!mxHosts?.length) return this.providers.providerOf(domain);
    let provider = this.byDomain.get(domain);
    if (provider === undefined) {
      provider = this.providers.providerOf(domain, mxHosts);
      if (this.byDomain.size >= MAX_REMEMBERED) this.byDomain.clear();
      this.byDomain.set(domain, provider);
    }
    return provider;
  }
}
