// Suppression after delivery: a hard bounce or a complaint puts the recipient on the account's
// list, in the same transaction that records the outcome (called by src/delivery/outcomes.ts),
// so the list never disagrees with the events.
//
// Which bounces count: Resend suppresses permanent bounces about the address (type Permanent,
// subType General or NoEmail). Transient ones (a full mailbox, a message too large, content or
// an attachment refused, the sender blocked: src/delivery/bounce-classes.ts) are about this
// message or a passing state, so the address stays sendable; so does an Undetermined one.
// Resend's test addresses (bounced@, complained@resend.dev, src/addresses/test-addresses.ts) are
// never listed: their bounces and complaints are simulated, and Resend offers them precisely
// so that testing harms no reputation. Each send to bounced@resend.dev bounces again, as an
// integration test run twice expects; suppression itself is what suppressed@resend.dev is for.
import type { Queryable } from '../db/database.js';
import { isTestAddress } from '../addresses/test-addresses.js';
import { addSuppressions, type NewSuppression } from './suppression-list.js';

/** The part of a delivery outcome (src/delivery/outcomes.ts `Outcome`) that decides suppression. */
export interface OutcomeForSuppression {
  delivery: { recipient: string; email: { id: string; accountId: string } };
  verdict: { kind: string; bounce?: { type: string; subType: string } };
}

const ADDRESS_BOUNCES = new Set(['General', 'NoEmail']);

export async function suppressAfterOutcomes(q: Queryable, outcomes: OutcomeForSuppression[]): Promise<void> {
  const entries: NewSuppression[] = [];
  for (const { delivery, verdict } of outcomes) {
    if (isTestAddress(delivery.recipient)) continue;
    const origin =
      verdict.kind === 'complained'
        ? 'complaint'
        : verdict.kind === 'bounced' && verdict.bounce?.type === 'Permanent' && ADDRESS_BOUNCES.has(verdict.bounce.subType)
          ? 'bounce'
          : undefined;
    if (origin) entries.push({ accountId: delivery.email.accountId, email: delivery.recipient, origin, sourceId: delivery.email.id });
  }
  await addSuppressions(q, entries);
}
