// A small submission's header section, read the way postal-mime reads a message's header
// (its lines, unfolding, UTF-8 decoding and whitespace rules; its own address and encoded-word
// parsers), without the rest of postal-mime's parse. That parse builds a MIME tree, awaits once
// per line and copies each (empty) body into a Blob: on the event loop that every SMTP session
// shares it cost ~4× this, for the same fields. test/message/header-fields.test.ts holds the two
// to the same result over a corpus of awkward headers.
import { addressParser, decodeWords, type Address } from 'postal-mime';
import type { ParsedSubmission } from './parse-message.js';

const utf8 = new TextDecoder('utf-8');
const LF = 10;
const CR = 13;

/** The header fields of `raw`: lines up to the first empty one (CRs before a line's LF do not count). */
export function readHeaderFields(raw: Buffer): ParsedSubmission {
  const fields = unfoldedLines(raw).map(field);
  // postal-mime looks fields up from the last one: the last Subject counts, and the addresses
  // of repeated To (or Cc) fields are listed last field first.
  const lastFirst = [...fields].reverse();
  const addresses = (key: string): Address[] => lastFirst.filter((f) => f.key === key && f.value).flatMap((f) => addressParser(f.value) ?? []);
  const subject = lastFirst.find((f) => f.key === 'subject')?.value;
  return {
    headers: fields,
    subject: subject ? decodeWords(subject) : undefined,
    to: addresses('to'),
    cc: addresses('cc'),
    replyTo: addresses('reply-to'),
  };
}

/** Header lines, each continuation line (leading whitespace) joined to the one before it with LF. */
function unfoldedLines(raw: Buffer): string[] {
  const lines: string[] = [];
  for (let start = 0; start < raw.length; ) {
    let lf = raw.indexOf(LF, start);
    if (lf < 0) lf = raw.length;
    let end = lf;
    while (end > start && raw[end - 1] === CR) end--;
    if (end === start) break; // the empty line that ends the header
    const line = utf8.decode(raw.subarray(start, end));
    if (lines.length > 0 && /^\s/.test(line)) lines[lines.length - 1] += `\n${line}`;
    else lines.push(line);
    start = lf + 1;
  }
  return lines;
}

/** Lower-case name and value, runs of whitespace as one space, trimmed: postal-mime's `headers`. */
function field(line: string): { key: string; value: string } {
  const normalized = line.replace(/\s+/g, ' ');
  const colon = normalized.indexOf(':');
  if (colon < 0) return { key: normalized.trim().toLowerCase(), value: '' };
  return { key: normalized.slice(0, colon).trim().toLowerCase(), value: normalized.slice(colon + 1).trim() };
}
