// How a domain row appears on the wire: REST (records labelled "Receiving") and webhook
// payloads (ISO timestamps, "Receiving MX").
import { isoTimestamp, restTimestamp } from '../api/format.js';
import type { Row } from '../db/database.js';
import type { DomainEventData } from '../events/payloads.js';
import { expectedRecords, type RecordStatus } from './dns-records.js';

export const DOMAIN_COLUMNS = `id, name, status, region, custom_return_path, open_tracking, click_tracking, tls,
  sending_enabled, receiving_enabled, tracking_subdomain, dkim_selector, dkim_public_key, record_status, created_at`;

function records(row: Row, mtaHost: string, receivingLabel: string) {
  return expectedRecords(
    {
      name: row.name,
      dkimSelector: row.dkim_selector,
      dkimPublicKey: row.dkim_public_key,
      returnPath: row.custom_return_path,
      receivingEnabled: row.receiving_enabled,
    },
    mtaHost,
  ).map((r) => ({
    record: r.record === 'Receiving' ? receivingLabel : r.record,
    name: r.name,
    type: r.type,
    ttl: 'Auto',
    status: (row.record_status[r.key] as RecordStatus | undefined) ?? 'not_started',
    value: r.value,
    ...(r.priority !== undefined ? { priority: r.priority } : {}),
  }));
}

const capabilities = (row: Row) => ({
  sending: row.sending_enabled ? 'enabled' : 'disabled',
  receiving: row.receiving_enabled ? 'enabled' : 'disabled',
});

export function domainSummary(row: Row) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: restTimestamp(row.created_at),
    region: row.region,
    capabilities: capabilities(row),
  };
}

export function domainDetail(row: Row, mtaHost: string) {
  return {
    object: 'domain',
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: restTimestamp(row.created_at),
    region: row.region,
    open_tracking: row.open_tracking,
    click_tracking: row.click_tracking,
    tracking_subdomain: row.tracking_subdomain,
    capabilities: capabilities(row),
    records: records(row, mtaHost, 'Receiving'),
  };
}

/** `data` of domain.* webhook events. */
export function domainEventData(row: Row, mtaHost: string): DomainEventData {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: isoTimestamp(row.created_at),
    region: row.region,
    records: records(row, mtaHost, 'Receiving MX'),
  };
}
