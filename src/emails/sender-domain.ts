// The resolve-sender step: every email's `from` must be on a verified domain of the account,
// and a sending key restricted to a domain may send only from that domain. One query for all
// the domains of a submission, however many emails it holds.
import { validation, type ApiError } from '../api/errors.js';
import type { Db, Queryable } from '../db/database.js';
import { createSandboxDomains } from '../domains/domains.js';
import { findSendingDomains, type SendingDomain } from '../domains/sending-domain.js';
import type { RecordTargets } from '../domains/dns-records.js';

/** POSTLINE_SANDBOX: nothing leaves the machine, so any domain may send, created on first use. */
export interface SandboxSending {
  db: Db;
  hosts: RecordTargets;
}

export interface SenderPrincipal {
  accountId: string;
  /** A sending_access key restricted to one domain. */
  domainId: string | null;
}

function domainNotVerified(name: string): ApiError {
  return validation(`The \`${name}\` domain is not verified. Please, add and verify your domain.`, 403);
}

/**
 * A sender domain deleted between its lookup and the commit (by its account, or moved to another
 * account by a domain claim: claim-transfer.ts) reads as not verified, as it would a moment
 * later, never as a 500. Undefined for any other error.
 */
export function senderDomainGone(err: unknown, emails: { domainId: string; request: { sender: { domain: string } } }[]): ApiError | undefined {
  const pgError = err as { code?: string; constraint?: string; detail?: string };
  if (pgError.code !== '23503' || pgError.constraint !== 'emails_domain_id_fkey') return undefined;
  const gone = emails.find((e) => pgError.detail?.includes(e.domainId)) ?? emails[0];
  return gone && domainNotVerified(gone.request.sender.domain);
}

/** Looks up the sender domains `names` and returns a check for each email's sender. */
export async function resolveSenderDomains(
  q: Queryable,
  principal: SenderPrincipal,
  names: string[],
  sandbox?: SandboxSending,
): Promise<(name: string) => SendingDomain | ApiError> {
  let domains = names.length ? await findSendingDomains(q, principal.accountId, names) : new Map<string, SendingDomain>();
  const missing = [...new Set(names.map((n) => n.toLowerCase()))].filter((n) => !domains.has(n));
  if (sandbox && missing.length > 0) {
    await createSandboxDomains(sandbox.db, principal.accountId, missing, sandbox.hosts);
    domains = await findSendingDomains(q, principal.accountId, names);
  }
  return (name) => {
    const domain = domains.get(name);
    // An unknown domain and another account's domain read the same, so nothing leaks.
    if (!domain || !(domain.verified || sandbox)) return domainNotVerified(name);
    if (principal.domainId && domain.id !== principal.domainId) {
      return validation(`This API key is restricted to another domain and cannot send from \`${name}\`.`, 403);
    }
    if (!domain.sendingEnabled) return validation(`Sending is disabled for the \`${name}\` domain.`, 403);
    return domain;
  };
}
