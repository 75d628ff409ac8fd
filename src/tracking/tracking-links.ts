// Tracking URLs on POSTLINE_PUBLIC_URL, signed (src/signing) so they cannot be forged or
// pointed elsewhere:
//   open pixel   /t/o/<email id>/<signature of the id>
//   click        /t/c/<email id>/<signature of (id, url)>?url=<the destination>
// The destination travels in the link itself, readable, and the signature binds it to the email:
// nothing is stored per link, and the redirect can only ever go where the sender's html pointed.
import type { UrlSigner } from '../signed-urls/url-signing.js';

export interface TrackingSigners {
  publicUrl: string;
  open: UrlSigner;
  click: UrlSigner;
}

export function openPixelUrl(s: TrackingSigners, emailId: string): string {
  return `${s.publicUrl}/t/o/${emailId}/${s.open.sign(emailId)}`;
}

export function clickUrl(s: TrackingSigners, emailId: string, url: string): string {
  return `${s.publicUrl}/t/c/${emailId}/${s.click.sign(emailId, url)}?url=${encodeURIComponent(url)}`;
}
