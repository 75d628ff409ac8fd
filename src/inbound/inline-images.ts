// `html_format=data_uri` (the default of GET /emails/receiving/:id): inline images referenced
// as `cid:<content id>` in the html come back as `data:` URIs, so the html renders on its own.
// The bytes are the parser's, from the stored raw message; `html_format=cid` skips all this.
import type { Email } from 'postal-mime';
import { attachmentBytes, bareContentId } from '../message/received-message.js';

/** A `cid:` URL in an attribute or CSS url(): up to the next quote, space, `>` or `)`. */
const CID_URL = /cid:([^"'\s>)]+)/gi;

export const referencesCid = (html: string | null): html is string => !!html && /cid:/i.test(html);

function decode(id: string): string {
  try {
    return decodeURIComponent(id); // RFC 2392: a cid URL is URL-encoded
  } catch {
    return id;
  }
}

export function inlineImages(html: string, email: Email): string {
  const byId = new Map<string, string>();
  for (const part of email.attachments) {
    const id = bareContentId(part.contentId);
    if (id && !byId.has(id)) byId.set(id, `data:${part.mimeType};base64,${attachmentBytes(part).toString('base64')}`);
  }
  if (byId.size === 0) return html;
  return html.replace(CID_URL, (url, id: string) => byId.get(decode(id)) ?? url);
}
