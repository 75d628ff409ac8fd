// How a domain row appears on the wire: REST (records labelled "Receiving") and webhook
// payloads (ISO timestamps, "Receiving MX").
import { isoTimestamp, restTimestamp } from '../api/format.js';
import { array, boolean, constant, integer, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { DomainEventData } from '../events/payloads.js';
import type { ScheduleStep } from '../warmup/schedule.js';
import { expectedRecords, type RecordStatus, type RecordTargets } from './dns-records.js';

export const DOMAIN_COLUMNS = `id, name, status, region, custom_return_path, open_tracking, click_tracking, tls,
  sending_enabled, receiving_enabled, tracking_subdomain, dkim_selector, dkim_public_key, record_status, created_at, sandboxed,
  warmup_started_at, warmup_schedule, warmup_cap_transactional, outbound_ips, placeholder`;

/** A domain as DOMAIN_COLUMNS selects it. */
export interface DomainRow {
  id: string;
  name: string;
  status: string;
  region: string;
  custom_return_path: string;
  open_tracking: boolean;
  click_tracking: boolean;
  tls: string;
  sending_enabled: boolean;
  receiving_enabled: boolean;
  tracking_subdomain: string | null;
  dkim_selector: string;
  dkim_public_key: string;
  /** Each record's (dns-records.ts' keys) last verification; a record not looked at yet is absent. */
  record_status: Partial<Record<string, RecordStatus>>;
  created_at: Date;
  sandboxed: boolean;
  warmup_started_at: Date | null;
  warmup_schedule: ScheduleStep[] | null;
  warmup_cap_transactional: boolean;
  outbound_ips: string[] | null;
  placeholder: boolean;
}

/** `RETURNING account_id, ${DOMAIN_COLUMNS}`: a domain with its account, as its events need. */
export interface AccountDomainRow extends DomainRow {
  account_id: string;
}

function records(row: DomainRow, targets: RecordTargets, receivingLabel: string, which: 'required' | 'recommended' | 'all' = 'all') {
  return expectedRecords(
    {
      name: row.name,
      dkimSelector: row.dkim_selector,
      dkimPublicKey: row.dkim_public_key,
      returnPath: row.custom_return_path,
      receivingEnabled: row.receiving_enabled,
      trackingSubdomain: row.tracking_subdomain,
    },
    targets,
  )
    .filter((r) => which === 'all' || r.required === (which === 'required'))
    .map((r) => ({
      record: r.record === 'Receiving' ? receivingLabel : r.record,
      name: r.name,
      type: r.type,
      ttl: 'Auto',
      status: row.record_status[r.key] ?? 'not_started',
      value: r.value,
      ...(r.priority !== undefined ? { priority: r.priority } : {}),
    }));
}

const capabilities = (row: DomainRow) => ({
  sending: row.sending_enabled ? 'enabled' : 'disabled',
  receiving: row.receiving_enabled ? 'enabled' : 'disabled',
});

const CAPABILITIES_SCHEMA = object({ sending: oneOfValues(['enabled', 'disabled']), receiving: oneOfValues(['enabled', 'disabled']) });

/** Present (true) only on a domain created in sandbox mode: Postline's own field. */
const SANDBOXED_SCHEMA = constant(true, {
  description: 'Postline: the domain was created with POSTLINE_SANDBOX on and sends without DNS there (never in production).',
});
/** Present (true) only on a claim's placeholder (domain-claims.ts): the domain another account holds until the claim completes. */
const PLACEHOLDER_SCHEMA = constant(true, {
  description:
    "Postline: a claim's placeholder: the domain is still another account's until its claim completes (GET /domains/:id/claim has the TXT record to publish, POST /domains/:id/claim/verify moves it).",
});
const SUMMARY_REQUIRED = ['id', 'name', 'status', 'created_at', 'region', 'capabilities'];

/** domainSummary's shape, for the routes' docs. */
export const DOMAIN_SUMMARY_SCHEMA = object(
  {
    id: uuid(),
    name: string(),
    status: string({ description: 'not_started until verified, then verified, pending, failed or temporary_failure.' }),
    created_at: restTime(),
    region: string(),
    capabilities: CAPABILITIES_SCHEMA,
    sandboxed: SANDBOXED_SCHEMA,
    placeholder: PLACEHOLDER_SCHEMA,
  },
  SUMMARY_REQUIRED,
);

const RECORD_SCHEMA = object(
  {
    record: oneOfValues(['DKIM', 'SPF', 'Receiving']),
    name: string(),
    type: oneOfValues(['TXT', 'MX', 'CNAME']),
    ttl: string(),
    status: oneOfValues(['not_started', 'pending', 'verified', 'failed', 'temporary_failure']),
    value: string(),
    priority: integer(),
  },
  ['record', 'name', 'type', 'ttl', 'status', 'value'],
);

/** What POST /domains answers: domainDetail without `object`. */
// tracking_subdomain is left out while none is set: the SDK declares it optional, not nullable.
const DETAIL_REQUIRED = [...SUMMARY_REQUIRED, 'open_tracking', 'click_tracking', 'tls', 'records'];
export const CREATED_DOMAIN_SCHEMA = object(
  {
    ...DOMAIN_SUMMARY_SCHEMA.properties,
    open_tracking: boolean(),
    click_tracking: boolean(),
    tracking_subdomain: string(),
    tls: oneOfValues(['opportunistic', 'enforced'], { description: 'Postline: the TLS policy set on create or update, so it can be read back.' }),
    records: array(RECORD_SCHEMA),
    recommended_records: array(
      object({ ...RECORD_SCHEMA.properties, record: oneOfValues(['DMARC', 'TLS-RPT', 'Tracking']) }, RECORD_SCHEMA.required as string[]),
      {
        description:
          "Postline: records worth publishing that verification does not wait for: DMARC, whose `rua` sends aggregate reports to Postline (dmarc-reports@ the return-path host: GET /domains/:id/dmarc-reports; any `v=DMARC1` record verifies); for a receiving domain the TLS-RPT record `_smtp._tls`, whose `rua` does the same for TLS reports (GET /domains/:id/tls-reports); should the return-path host be outside the domain, the `<domain>._report._dmarc.<host>` TXT record RFC 7489 §7.1 asks of that host's zone (its `name` is then a full name); and with a `tracking_subdomain` its CNAME to Postline's public host (tracked links use it once verified). Resend's `records` lists only those it needs, with labels the SDK knows, so they are kept apart.",
      },
    ),
  },
  [...DETAIL_REQUIRED, 'recommended_records'],
);
/** domainDetail's shape. */
export const DOMAIN_SCHEMA = object({ object: constant('domain'), ...CREATED_DOMAIN_SCHEMA.properties }, ['object', ...DETAIL_REQUIRED]);

export function domainSummary(row: DomainRow) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: restTimestamp(row.created_at),
    region: row.region,
    capabilities: capabilities(row),
    ...sandboxed(row),
    ...placeholder(row),
  };
}

/** Postline's own field, only on a domain created in sandbox mode (POSTLINE_SANDBOX): it sends without DNS. */
const sandboxed = (row: DomainRow) => (row.sandboxed ? { sandboxed: true as const } : {});
/** Postline's own field, only on a claim's placeholder, so a client (the dashboard) can tell it from a domain of the account's own. */
const placeholder = (row: DomainRow) => (row.placeholder ? { placeholder: true as const } : {});

export function domainDetail(row: DomainRow, targets: RecordTargets) {
  return {
    object: 'domain',
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: restTimestamp(row.created_at),
    region: row.region,
    open_tracking: row.open_tracking,
    click_tracking: row.click_tracking,
    ...(row.tracking_subdomain !== null ? { tracking_subdomain: row.tracking_subdomain } : {}),
    // Postline's own field (Resend's answer leaves it out): a setting that is written can be read.
    tls: row.tls,
    capabilities: capabilities(row),
    records: records(row, targets, 'Receiving', 'required'),
    recommended_records: records(row, targets, 'Receiving', 'recommended'),
    ...sandboxed(row),
    ...placeholder(row),
  };
}

/** `data` of domain.* webhook events. */
export function domainEventData(row: DomainRow, targets: RecordTargets): DomainEventData {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: isoTimestamp(row.created_at),
    region: row.region,
    records: records(row, targets, 'Receiving MX'),
  };
}
