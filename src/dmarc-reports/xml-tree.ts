// A small XML reader for report documents: elements into nested objects (an element with child
// elements → an object keyed by local name, a repeated name → an array, a leaf → its text), the
// shape fast-xml-parser gives. fast-xml-parser 5.7.3 was the first choice, but side by side on the
// same 2-core machine it took 7–10 s for a 20,000-record report (8.5 MB) where this takes 1–2 s
// (0.3–0.5 s of CPU; bench/dmarc-report-read.ts), and a day's report of a large domain must not
// hold the inbound path that long.
//
// It is made for reading what reporters send, not for checking it:
//   - attributes are skipped and namespace prefixes dropped (<dmarc:record> is <record>);
//   - entities: only the five predefined ones and character references are decoded. A DOCTYPE is
//     skipped whole, so no entity it declares is ever expanded ("billion laughs") nor any external
//     one fetched (XXE); a reference to one stays as written;
//   - it does not give up on XML that is not well-formed: each fault (a closing tag that does not
//     match, the text ending inside an element) is said once, and the element named `unit`
//     (a report's <record>) in which it happened is marked damaged with the reason, in its
//     `#damaged` key, so that the caller can skip that record and keep the others.
// It never throws.

export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

interface Frame {
  name: string;
  node: XmlNode | null;
  text: string;
  damaged: string | null;
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g;

function decodeReferences(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(REFERENCE, (whole, name: string) => {
    if (name[0] !== '#') return PREDEFINED[name]!;
    const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

const localName = (qname: string) => {
  const colon = qname.indexOf(':');
  return colon < 0 ? qname : qname.slice(colon + 1);
};

function add(parent: Frame, name: string, value: XmlValue) {
  const node = (parent.node ??= {});
  const existing = node[name];
  // A value is never an array but for the ones made here: a name seen again.
  if (existing === undefined) node[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else node[name] = [existing, value];
}

/**
 * The document's elements as nested objects under their names; `faults` gets each way the text
 * is not well-formed (a DOCTYPE skipped included). `unit`: the element whose faults mark it damaged.
 */
export function readXmlTree(text: string, faults: string[], unit = 'record'): XmlNode {
  const root: Frame = { name: '', node: null, text: '', damaged: null };
  const stack: Frame[] = [root];
  // Each fault is said (up to 20, the line found only then: a text of many faults stays linear) and damages its unit.
  const fault = (at: number, what: string) => {
    const reason = at < 0 || faults.length > 20 ? what : `line ${line(at)}: ${what}`;
    if (faults.length < 20) faults.push(reason);
    else if (faults.length === 20) faults.push('more faults not listed');
    for (let i = stack.length - 1; i > 0; i--) {
      if (stack[i]!.name === unit) {
        stack[i]!.damaged ??= reason;
        break;
      }
    }
  };
  const close = (frame: Frame) => {
    const parent = stack[stack.length - 1]!;
    let value: XmlValue = frame.node ?? frame.text.trim();
    if (frame.damaged !== null) value = { ...(frame.node ?? {}), '#damaged': frame.damaged };
    add(parent, frame.name, value);
  };
  const line = (at: number) => {
    let n = 1;
    for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) n++;
    return n;
  };

  let pos = 0;
  const length = text.length;
  while (pos < length) {
    const lt = text.indexOf('<', pos);
    const top = stack[stack.length - 1]!;
    // Text counts only in a leaf (whitespace between elements is never sliced out).
    if ((lt < 0 || lt > pos) && top.node === null && stack.length > 1) top.text += decodeReferences(text.slice(pos, lt < 0 ? length : lt));
    if (lt < 0) break;
    const next = text.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      const end = text.indexOf('?>', lt + 2);
      pos = end < 0 ? length : end + 2;
    } else if (next === 0x21 /* ! */) {
      if (text.startsWith('<!--', lt)) {
        const end = text.indexOf('-->', lt + 4);
        pos = end < 0 ? length : end + 3;
      } else if (text.startsWith('<![CDATA[', lt)) {
        const end = text.indexOf(']]>', lt + 9);
        if (top.node === null && stack.length > 1) top.text += text.slice(lt + 9, end < 0 ? length : end);
        pos = end < 0 ? length : end + 3;
      } else {
        // <!DOCTYPE …> with its internal subset in [ … ]: skipped whole, its entities never used.
        // Each search starts where the last one ended, so that many of them stay linear.
        if (/^<!DOCTYPE/i.test(text.slice(lt, lt + 9)) && !faults.some((f) => f.startsWith('a DOCTYPE'))) {
          faults.push('a DOCTYPE was skipped: the entities it declares are never expanded');
        }
        const gt = text.indexOf('>', lt);
        const bracket = gt < 0 ? -1 : text.slice(lt, gt).indexOf('[');
        const subsetEnd = bracket < 0 ? -1 : text.indexOf(']', lt + bracket);
        const end = bracket < 0 ? gt : subsetEnd < 0 ? -1 : text.indexOf('>', subsetEnd);
        pos = end < 0 ? length : end + 1;
      }
    } else if (next === 0x2f /* / */) {
      const gt = text.indexOf('>', lt + 2);
      const name = localName(text.slice(lt + 2, gt < 0 ? length : gt).trim());
      pos = gt < 0 ? length : gt + 1;
      let at = stack.length - 1;
      while (at > 0 && stack[at]!.name !== name) at--;
      if (at === 0) {
        fault(lt, `</${name.slice(0, 64)}> closes no open element`);
        continue;
      }
      if (at < stack.length - 1) fault(lt, `<${stack[stack.length - 1]!.name.slice(0, 64)}> not closed before </${name.slice(0, 64)}>`);
      while (stack.length > at) close(stack.pop()!);
    } else {
      const gt = tagEnd(text, lt + 1);
      if (gt < 0 || text.charCodeAt(gt) === 0x3c) {
        fault(lt, gt < 0 ? 'the text ends inside a tag' : 'a tag not ended by ">"');
        pos = gt < 0 ? length : gt;
        continue;
      }
      const selfClosing = text.charCodeAt(gt - 1) === 0x2f;
      let nameEnd = lt + 1;
      while (nameEnd < gt && !NAME_ENDS.has(text.charCodeAt(nameEnd))) nameEnd++;
      const name = localName(text.slice(lt + 1, nameEnd));
      pos = gt + 1;
      if (!startsName(name)) {
        fault(lt, '"<" that starts no element');
        if (top.node === null && stack.length > 1) top.text += text.slice(lt, pos);
        continue;
      }
      const frame: Frame = { name, node: null, text: '', damaged: null };
      top.node ??= {};
      if (selfClosing) add(top, name, '');
      else stack.push(frame);
    }
  }
  if (stack.length > 1) {
    const open = stack.slice(Math.max(1, stack.length - 4)).map((f) => `<${f.name.slice(0, 64)}>`);
    fault(-1, `the text ends inside ${stack.length > 5 ? '…' : ''}${open.join('')} (cut short?)`);
    while (stack.length > 1) close(stack.pop()!);
  }
  return root.node ?? {};
}

const NAME_ENDS = new Set([0x20, 0x09, 0x0a, 0x0d, 0x2f]);
/** A name starts with a letter or `_` (any non-ASCII character taken as a letter). */
function startsName(name: string): boolean {
  const c = name.charCodeAt(0);
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0x80;
}

/** The `>` ending the tag that starts at `from` (outside quoted attribute values), or the `<` of a tag starting before it ended; -1 when neither comes. */
function tagEnd(text: string, from: number): number {
  let quote = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i;
    else if (c === 0x3c) return i;
  }
  return -1;
}
