// What the accept pipeline needs to know about the domains it sends from: verified or not,
// and the DKIM key and return-path host to sign and bounce with.
import type { Queryable } from '../db/database.js';

export interface SendingDomain {
  id: string;
  name: string;
  status: string;
  verified: boolean;
  sendingEnabled: boolean;
  dkimSelector: string;
  dkimPrivateKey: string;
  /** Host of the envelope sender (MAIL FROM), `send.<domain>` unless customised. */
  returnPathHost: string;
  /** Open and click tracking of the domain's html emails (src/tracking); absent: off. */
  openTracking?: boolean;
  clickTracking?: boolean;
  /** `<tracking_subdomain>.<domain>` once its CNAME verified: tracked links and the open pixel use it. */
  trackingHost?: string;
}

const COLUMNS = `id, name, status, sending_enabled, dkim_selector, dkim_private_key, custom_return_path,
                 open_tracking, click_tracking, tracking_subdomain, record_status->>'tracking' AS tracking_status`;

/** A domain as COLUMNS selects it. */
interface SendingDomainRow {
  id: string;
  name: string;
  status: string;
  sending_enabled: boolean;
  dkim_selector: string;
  dkim_private_key: string;
  custom_return_path: string;
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_subdomain: string | null;
  tracking_status: string | null;
}

/** The account's domains among `names` (lower-case), keyed by name. One query for any number. */
export async function findSendingDomains(q: Queryable, accountId: string, names: string[]): Promise<Map<string, SendingDomain>> {
  const unique = [...new Set(names.map((n) => n.toLowerCase()))];
  const rows = await q.query<SendingDomainRow>(`SELECT ${COLUMNS} FROM domains WHERE account_id = $1 AND name = ANY($2::text[]) AND NOT placeholder`, [
    accountId,
    unique,
  ]);
  return new Map(rows.map((r) => [r.name, sendingDomain(r)]));
}

/** Domains by id, whatever their state (an accepted email is signed even if its domain has changed since). */
export async function findSendingDomainsById(q: Queryable, ids: string[]): Promise<Map<string, SendingDomain>> {
  const rows = await q.query<SendingDomainRow>(`SELECT ${COLUMNS} FROM domains WHERE id = ANY($1::uuid[])`, [[...new Set(ids)]]);
  return new Map(rows.map((r) => [r.id, sendingDomain(r)]));
}

function sendingDomain(r: SendingDomainRow): SendingDomain {
  return {
    id: r.id,
    name: r.name,
    status: r.status,
    verified: r.status === 'verified',
    sendingEnabled: r.sending_enabled,
    dkimSelector: r.dkim_selector,
    dkimPrivateKey: r.dkim_private_key,
    returnPathHost: `${r.custom_return_path}.${r.name}`,
    openTracking: r.open_tracking,
    clickTracking: r.click_tracking,
    ...(r.tracking_subdomain && r.tracking_status === 'verified' ? { trackingHost: `${r.tracking_subdomain}.${r.name}` } : {}),
  };
}

interface DomainAccountRow {
  account_id: string;
}

/** The account whose verified domain `name` is (Postline's own reports are sent as it); undefined: none. */
export async function accountOfVerifiedDomain(q: Queryable, name: string): Promise<string | undefined> {
  const row = await q.one<DomainAccountRow>(
    `SELECT account_id FROM domains WHERE name = $1 AND status = 'verified' AND NOT placeholder ORDER BY created_at LIMIT 1`,
    [name.toLowerCase()],
  );
  return row?.account_id;
}
