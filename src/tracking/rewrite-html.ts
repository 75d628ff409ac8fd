// The tracking step of composing (before DKIM signing, which then covers the final body): for
// a domain with open tracking, a 1×1 pixel at the end of the html body; with click tracking,
// every http(s) link of an <a href> rewritten to the signed redirect (tracking-links.ts).
// Only the html part changes: the text part and the stored `html` of the email stay as sent.
import { clickUrl, openPixelUrl, type TrackingSigners } from './tracking-links.js';

interface TrackingOptions {
  open: boolean;
  click: boolean;
}

/** An <a> start tag; attribute values may hold '>' inside quotes. */
const ANCHOR = /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
const HREF = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;
const ENTITY = /&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** An attribute value as the browser reads it: character references decoded. */
function decodeAttribute(value: string): string {
  return value.replace(ENTITY, (whole, ref: string) => {
    const lower = ref.toLowerCase();
    if (lower.startsWith('#')) {
      const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[lower] ?? whole;
  });
}

/** The destination a link would open, normalised (WHATWG), or undefined for links not to track. */
function trackableUrl(href: string): string | undefined {
  const value = decodeAttribute(href).trim();
  if (!/^https?:\/\//i.test(value)) return undefined; // mailto:, tel:, #anchors, cid:, relative
  try {
    return new URL(value).href;
  } catch {
    return undefined;
  }
}

export function rewriteHtml(html: string, emailId: string, options: TrackingOptions, signers: TrackingSigners): string {
  let out = html;
  if (options.click) {
    out = out.replace(ANCHOR, (tag) =>
      tag.replace(HREF, (whole, prefix: string, dq?: string, sq?: string, bare?: string) => {
        const url = trackableUrl(dq ?? sq ?? bare ?? '');
        return url ? `${prefix}"${escapeAttribute(clickUrl(signers, emailId, url))}"` : whole;
      }),
    );
  }
  if (options.open) {
    const pixel = `<img src="${escapeAttribute(openPixelUrl(signers, emailId))}" width="1" height="1" alt="" border="0" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`;
    const end = out.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
    out = end >= 0 ? `${out.slice(0, end)}${pixel}${out.slice(end)}` : `${out}${pixel}`;
  }
  return out;
}
