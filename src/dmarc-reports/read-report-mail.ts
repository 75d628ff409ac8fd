// Reading a received message for the reports it carries: DMARC aggregate reports (RFC 7489
// appendix C, the draft schema before it, DMARCbis) and SMTP TLS reports (RFC 8460). A report
// is recognised by what the message carries, never by who sent it:
//   - an attachment typed text/xml, application/xml, application/gzip (x-gzip), application/zip
//     (x-zip-compressed, x-zip), application/tlsrpt+json, application/tlsrpt+gzip or
//     application/json, or one typed application/octet-stream (or untyped) whose name ends in
//     .xml, .json, .gz or .zip or whose bytes are a gzip or zip archive;
//   - a message whose only part is the report: postal-mime gives a single-part body that is not
//     text/plain or text/html as an attachment, so it is read as above; a text/plain body holding
//     the XML or JSON itself is read when no attachment held a report.
// What is inside is then told by its content: XML with <feedback> (or its parts) is a DMARC
// report, JSON with policies / organization-name a TLS report; anything else (an invoice's XML, a
// zip of documents) is not a report and is passed over in silence.
//
// Each part that looked like a report but could not be read is kept in `unreadable` with why: an
// archive past the inflation bound (a bomb, refused before it is inflated: unpack.ts; said for any
// part), an archive that is broken (said when the part is unnamed, typed tlsrpt or named like a
// report: a broken photos.zip is not ours), XML or JSON of a report that cannot be read. A part repeated byte for byte, or a
// report repeated (the same kind, organisation and report id), is read once. Nothing here throws.
import { createHash } from 'node:crypto';
import type { Attachment, Email } from 'postal-mime';
import { looksLikeDmarcXml, readDmarcXml } from './dmarc-xml.js';
import type { DmarcAggregateReport, ReportMailReading, SmtpTlsReport } from './report-types.js';
import { looksLikeTlsJson, readTlsJson } from './tls-json.js';
import { DEFAULT_MAX_INFLATED_BYTES, decodeText, packingOf, unpack } from './unpack.js';

export { readDmarcXml } from './dmarc-xml.js';
export { readTlsJson } from './tls-json.js';

interface ReadReportOptions {
  /** The bound on what one attachment may inflate to (gzip, zip); 50 MiB unless given. */
  maxInflatedBytes?: number;
}

const REPORT_TYPES = new Set([
  'text/xml',
  'application/xml',
  'application/gzip',
  'application/x-gzip',
  'application/zip',
  'application/x-zip-compressed',
  'application/x-zip',
  'application/tlsrpt+json',
  'application/tlsrpt+gzip',
  'application/json',
]);
const UNTYPED = new Set(['', 'application/octet-stream', 'application/x-download', 'binary/octet-stream']);
const REPORT_NAME = /\.(xml|json|gz|gzip|zip)$/i;
/** A name that says "report" (report.xml.gz, google.com!example.com!…zip): a broken archive so named (or unnamed) is worth a word. */
const REPORTISH_NAME = /\.(xml|json)\b|!/i;

interface Part {
  filename: string | null;
  contentType: string;
  bytes: Uint8Array;
}

export function readReportMail(email: Email, options: ReadReportOptions = {}): ReportMailReading | null {
  const max = options.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES;
  const reading: ReportMailReading = { reports: [], unreadable: [] };
  const seenParts = new Set<string>();
  const seenReports = new Set<string>();
  const keep = (report: DmarcAggregateReport | SmtpTlsReport) => {
    const key = `${report.kind}\n${report.orgName}\n${report.reportId}`;
    if (report.reportId && seenReports.has(key)) return;
    seenReports.add(key);
    reading.reports.push(report);
  };

  for (const attachment of email.attachments ?? []) {
    let part: Part | null = null;
    try {
      part = partOf(attachment);
    } catch {
      // an attachment postal-mime gave in no form we know: not ours to read
    }
    if (!part || !isCandidate(part)) continue;
    const digest = createHash('sha256').update(part.bytes).digest('hex');
    if (seenParts.has(digest)) continue;
    seenParts.add(digest);
    readPart(part, max, reading, keep);
  }
  if (reading.reports.length === 0 && reading.unreadable.length === 0 && typeof email.text === 'string') {
    const text = email.text.trim();
    if (text && (looksLikeDmarcXml(text) || looksLikeTlsJson(text))) {
      readPart({ filename: null, contentType: 'text/plain', bytes: Buffer.from(text, 'utf8') }, max, reading, keep);
    }
  }
  return reading.reports.length === 0 && reading.unreadable.length === 0 ? null : reading;
}

function partOf(a: Attachment): Part | null {
  const content = a.content as unknown;
  let bytes: Uint8Array;
  if (content instanceof ArrayBuffer) bytes = new Uint8Array(content);
  else if (content instanceof Uint8Array) bytes = content;
  else if (typeof content === 'string') bytes = Buffer.from(content, a.encoding === 'base64' ? 'base64' : 'utf8');
  else return null;
  return { filename: a.filename ?? null, contentType: (a.mimeType ?? '').toLowerCase().trim(), bytes };
}

function isCandidate(part: Part): boolean {
  if (REPORT_TYPES.has(part.contentType)) return true;
  if (!UNTYPED.has(part.contentType) && part.contentType !== 'text/plain') return false;
  return REPORT_NAME.test(part.filename ?? '') || packingOf(part.bytes) !== 'plain';
}

function readPart(part: Part, max: number, reading: ReportMailReading, keep: (r: DmarcAggregateReport | SmtpTlsReport) => void) {
  const unreadable = (reason: string) =>
    reading.unreadable.push({ filename: part.filename, contentType: part.contentType || 'application/octet-stream', reason });
  try {
    const unpacked = unpack(part.bytes, max);
    if ('refused' in unpacked) {
      // A bomb is always said; a broken archive only when it claims to be a report (photos.zip is not ours).
      const bomb = unpacked.refused.includes('past the bound');
      const claimsReport = part.contentType.startsWith('application/tlsrpt') || part.filename === null || REPORTISH_NAME.test(part.filename);
      if (bomb || claimsReport) unreadable(unpacked.refused);
      return;
    }
    const tlsTyped = part.contentType.startsWith('application/tlsrpt');
    for (const file of unpacked.files) {
      const problems = [...unpacked.problems];
      const text = decodeText(file.bytes, problems);
      const within = file.name ? `${file.name}: ` : '';
      let result: ReturnType<typeof readDmarcXml> | ReturnType<typeof readTlsJson> | null = null;
      if (looksLikeDmarcXml(text)) result = readDmarcXml(text, problems);
      else if (tlsTyped || looksLikeTlsJson(text)) result = readTlsJson(text, problems);
      if (!result) continue; // not a report: some other XML, JSON or file
      if ('report' in result) keep(result.report);
      else unreadable(within + result.unreadable);
    }
  } catch (err) {
    unreadable(`could not be read: ${(err as Error).message}`);
  }
}
