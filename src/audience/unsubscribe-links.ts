// Unsubscribe links of broadcast mail, on POSTLINE_PUBLIC_URL and signed (src/signing, purpose
// 'unsubscribe') so nobody can unsubscribe someone else by guessing ids:
//
//   /unsubscribe/<contact id>/<broadcast id>/<signature of (contact id, broadcast id)>
//
// The same URL is the `{{{RESEND_UNSUBSCRIBE_URL}}}` of the html (GET: the preference page)
// and the List-Unsubscribe target (RFC 2369), with List-Unsubscribe-Post (RFC 8058) so a mail
// client's unsubscribe button POSTs to it and the contact is unsubscribed without a page.
// Nothing is stored per link. The broadcast id says where an unsubscribe came from
// (GET /broadcasts/:id/recipients?type=unsubscribed). Routes: unsubscribe-routes.ts.
import type { UrlSigner } from '../signed-urls/url-signing.js';

export interface UnsubscribeLinks {
  publicUrl: string;
  signer: UrlSigner;
}

export function unsubscribeUrl(links: UnsubscribeLinks, contactId: string, broadcastId: string): string {
  return `${links.publicUrl}/unsubscribe/${contactId}/${broadcastId}/${links.signer.sign(contactId, broadcastId)}`;
}

export function verifyUnsubscribeLink(signer: UrlSigner, contactId: string, broadcastId: string, signature: string): boolean {
  return signer.verify(signature, contactId, broadcastId);
}

/**
 * The headers of a broadcast message: one https URI (RFC 8058 §3.1 needs one for one-click;
 * no mailto:, since Postline reads no unsubscribe mailbox) and the one-click marker. Both are
 * covered by the DKIM signature (src/message/dkim.ts), as RFC 8058 §4 requires.
 */
export function listUnsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
