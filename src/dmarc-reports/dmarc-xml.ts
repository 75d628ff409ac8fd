// Reading a DMARC aggregate report's XML: RFC 7489 appendix C (<version>1.0</version>), the
// draft schema before it (no version; <identities> for <identifiers>, as dmarc.org's wiki
// example and early reporters wrote), and DMARCbis (RFC 9990: the namespace
// urn:ietf:params:xml:ns:dmarc-2.0, <np>, <testing>, <discovery_method>, <generator>, no <pct>,
// disposition `pass`). Namespace prefixes are dropped, so <dmarc:record> reads as <record>.
//
// Reporters get things wrong, so the reading is forgiving, as parsedmarc's is: numbers may come
// as padded strings, fields may be missing (a missing org_name is taken from the email's domain),
// and in XML that is not well-formed each record spoilt (a tag not closed, the text cut short) is
// skipped and the others read, each record that cannot be read said in `problems` with why.
// Nothing here throws.
//
// The XML is read by xml-tree.ts (attributes skipped, prefixes dropped, no entity but the five
// predefined ones and character references ever expanded, a DOCTYPE skipped whole).
import { isIP } from 'node:net';
import type { DmarcAggregateReport, DmarcRow } from './report-types.js';
import { capped, quoted } from './problems.js';
import { decodeText } from './unpack.js';
import { readXmlTree, type XmlNode } from './xml-tree.js';

export type Reading<T> = { report: T } | { unreadable: string };

const DMARCBIS_NAMESPACE = /<(?:[\w.-]+:)?feedback\b[^>]*urn:ietf:params:xml:ns:dmarc-2\.0/;

type Node = XmlNode;

/** Whether `text` looks like a DMARC aggregate report (worth reading, or saying why it cannot be). */
export const looksLikeDmarcXml = (text: string) => /<(?:[\w.-]+:)?(feedback|report_metadata|policy_published)\b/.test(text.slice(0, 4096));

/** `problems`: what was already found wrong on the way here (unpacking, decoding), kept with the report. */
export function readDmarcXml(xml: string | Uint8Array, problems: string[] = []): Reading<DmarcAggregateReport> {
  const text = typeof xml === 'string' ? xml.replace(/^\uFEFF/, '') : decodeText(xml, problems);
  const faults: string[] = [];
  const tree = readXmlTree(text, faults);
  const feedback = node(tree.feedback) ?? ('report_metadata' in tree || 'record' in tree ? tree : null);
  const notWellFormed = faults.filter((f) => !f.startsWith('a DOCTYPE'));
  for (const f of faults) problems.push(f.startsWith('a DOCTYPE') ? f : `not well-formed XML: ${f}`);
  if (!feedback) {
    return {
      unreadable: notWellFormed.length
        ? `not well-formed XML (${notWellFormed[0]}) and no report found in it`
        : 'no <feedback> element: not a DMARC aggregate report',
    };
  }
  return { report: readFeedback(feedback, DMARCBIS_NAMESPACE.test(text.slice(0, 4096)), problems) };
}

function readFeedback(feedback: Node, namespaced: boolean, problems: string[]): DmarcAggregateReport {
  const meta = node(feedback.report_metadata) ?? {};
  if (!feedback.report_metadata) problems.push('no <report_metadata>');
  const published = first(feedback.policy_published, 'policy_published', problems) ?? {};
  if (!feedback.policy_published) problems.push('no <policy_published>');
  const version = str(feedback.version);
  const bisOnly = ['np', 'testing', 'discovery_method'].some((k) => k in published) || 'generator' in meta;
  const schema = namespaced || (bisOnly && !('pct' in published)) ? 'dmarcbis' : version ? '1.0' : 'draft';
  if (version && version !== '1.0' && schema === '1.0') problems.push(`unknown version ${quoted(version)}: read as 1.0`);

  const email = str(meta.email);
  let orgName = str(meta.org_name);
  if (!orgName) {
    orgName = email?.split('@').pop() ?? '';
    problems.push(orgName ? `no org_name: taken from the email's domain` : 'no org_name');
  }
  const reportId = str(meta.report_id)?.replace(/^<|>$/g, '') ?? '';
  if (!reportId) problems.push('no report_id');
  const range = node(meta.date_range) ?? {};
  const rows: DmarcRow[] = [];
  list(feedback.record).forEach((record, i) => {
    const row = readRecord(node(record), i + 1, problems);
    if (row) rows.push(row);
  });
  const policyDomain = str(published.domain) ?? '';
  if (!policyDomain) problems.push('no policy_published domain');
  const pct = str(published.pct);
  if (pct !== null && count(pct) === null) problems.push(`policy_published pct ${quoted(pct)} is not a number`);
  return {
    kind: 'dmarc',
    schema,
    orgName,
    reporterEmail: email,
    reportId,
    periodBegin: date(range.begin, 'date_range begin', problems),
    periodEnd: date(range.end, 'date_range end', problems),
    policyDomain,
    policy: {
      p: lower(published.p),
      sp: lower(published.sp),
      pct: pct === null ? null : count(pct),
      adkim: lower(published.adkim),
      aspf: lower(published.aspf),
      np: lower(published.np),
    },
    rows,
    problems: capped(problems),
  };
}

function readRecord(record: Node | null, n: number, problems: string[]): DmarcRow | null {
  const skipped = (why: string) => {
    problems.push(`record ${n}: ${why}, skipped`);
    return null;
  };
  if (typeof record?.['#damaged'] === 'string') return skipped(`not well-formed (${record['#damaged']})`);
  const row = node(record?.row);
  if (!record || !row) return skipped('no <row>');
  const sourceIp = str(row.source_ip);
  if (!sourceIp) return skipped('no source_ip');
  if (!isIP(sourceIp)) problems.push(`record ${n}: source_ip ${quoted(sourceIp)} is not an IP address`);
  const rowCount = count(row.count);
  if (rowCount === null) return skipped(`count ${quoted(str(row.count) ?? '')} is not a number`);
  const evaluated = node(row.policy_evaluated) ?? {};
  const ids = node(record.identifiers) ?? node(record.identities) ?? {};
  const auth = node(record.auth_results) ?? {};
  const dkim = list(auth.dkim).flatMap((d) => {
    const r = node(d);
    const domain = str(r?.domain);
    return r && domain ? [{ domain: domain.toLowerCase(), selector: str(r.selector), result: lower(r.result) ?? 'none' }] : [];
  });
  const spf = list(auth.spf).flatMap((s) => {
    const r = node(s);
    const domain = str(r?.domain);
    return r && domain ? [{ domain: domain.toLowerCase(), scope: lower(r.scope), result: lower(r.result) ?? 'none' }] : [];
  });
  const overrides = list(evaluated.reason).flatMap((reason) => {
    const r = node(reason);
    const type = r ? str(r.type) : str(reason);
    return type ? [{ type: type.toLowerCase(), comment: r ? str(r.comment) : null }] : [];
  });
  return {
    sourceIp,
    count: rowCount,
    disposition: lower(evaluated.disposition),
    dkimAligned: lower(evaluated.dkim),
    spfAligned: lower(evaluated.spf),
    headerFrom: lower(ids.header_from),
    envelopeFrom: lower(ids.envelope_from),
    envelopeTo: lower(ids.envelope_to),
    dkim,
    spf,
    overrides,
  };
}

// --- values as xml-tree.ts gives them: a string, an object, or an array of either ---

const node = (v: unknown): Node | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : null);

function list(v: unknown): unknown[] {
  if (v === undefined || v === null || v === '') return [];
  return Array.isArray(v) ? v : [v];
}

function first(v: unknown, name: string, problems: string[]): Node | null {
  if (Array.isArray(v)) {
    problems.push(`${v.length} <${name}> elements: the first read`);
    return node(v[0]);
  }
  return node(v);
}

/** A leaf's text, trimmed, entities decoded; null when missing or empty. */
function str(v: unknown): string | null {
  if (Array.isArray(v)) return str(v[0]);
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return s === '' ? null : s;
}

const lower = (v: unknown) => str(v)?.toLowerCase() ?? null;

/** A whole number of zero or more, written as reporters write it ("12", " 12 ", "12.0"). */
function count(v: unknown): number | null {
  const s = str(v);
  if (s === null || !/^\+?\d+(\.0*)?$/.test(s)) return null;
  const n = Number.parseInt(s, 10);
  return Number.isSafeInteger(n) ? n : null;
}

/** Seconds since the epoch (RFC 7489), or an ISO date some reporters write; the epoch itself when unreadable, said in problems. */
function date(v: unknown, what: string, problems: string[]): Date {
  const s = str(v);
  const seconds = count(s);
  if (seconds !== null) return new Date(seconds * 1000);
  const parsed = s === null ? Number.NaN : Date.parse(s);
  if (!Number.isNaN(parsed)) return new Date(parsed);
  problems.push(s === null ? `no ${what}` : `${what} ${quoted(s)} is not a time`);
  return new Date(0);
}
