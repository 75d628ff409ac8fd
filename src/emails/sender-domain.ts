// The resolve-sender step: every email's `from` must be on a verified domain of the account,
// and a sending key restricted to a domain may send only from that domain. One query for all
// the domains of a submission, however many emails it holds.
import { validation, type ApiError } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { findSendingDomains, type SendingDomain } from '../domains/sending-domain.js';

export interface SenderPrincipal {
  accountId: string;
  /** A sending_access key restricted to one domain. */
  domainId: string | null;
}

function domainNotVerified(name: string): ApiError {
  return validation(`The \`${name}\` domain is not verified. Please, add and verify your domain.`, 403);
}

/** Looks up the sender domains `names` and returns a check for each email's sender. */
export async function resolveSenderDomains(q: Queryable, principal: SenderPrincipal, names: string[]): Promise<(name: string) => SendingDomain | ApiError> {
  const domains = names.length ? await findSendingDomains(q, principal.accountId, names) : new Map<string, SendingDomain>();
  return (name) => {
    const domain = domains.get(name);
    // An unknown domain and another account's domain read the same, so nothing leaks.
    if (!domain?.verified) return domainNotVerified(name);
    if (principal.domainId && domain.id !== principal.domainId) {
      return validation(`This API key is restricted to another domain and cannot send from \`${name}\`.`, 403);
    }
    if (!domain.sendingEnabled) return validation(`Sending is disabled for the \`${name}\` domain.`, 403);
    return domain;
  };
}
