// The compose, tracking and sign steps of one email, shared by the accept pipeline (accept.ts)
// and by composition at delivery (compose-deferred.ts), so an email composed late is built
// exactly as one composed at accept.
import type { SendingDomain } from '../domains/sending-domain.js';
import { rewriteHtml } from '../tracking/rewrite-html.js';
import type { TrackingSigners } from '../tracking/tracking-links.js';
import type { Attachment } from './attachments.js';
import { composeMessage } from './compose.js';
import { signMessage } from '../message/dkim.js';
import type { EmailRequest } from './email-request.js';

interface MessageInput {
  id: string;
  request: EmailRequest;
  domain: SendingDomain;
  /** The text part (compose.ts textPart). */
  text: string | null;
  messageId: string;
  date: Date;
  attachments?: Attachment[];
  /** Present when the domain tracks opens or clicks. */
  signers: TrackingSigners | undefined;
}

export const tracksAny = (domain: SendingDomain) => !!(domain.openTracking || domain.clickTracking);

/** The tracking step: the html with its open pixel and tracked links, when the domain asks for them. */
function track(request: EmailRequest, domain: SendingDomain, id: string, signers: TrackingSigners | undefined): EmailRequest {
  if (!signers || !request.html || !tracksAny(domain)) return request;
  // The domain's own tracking host once verified (its CNAME points at Postline), else POSTLINE_PUBLIC_URL.
  const linksOn = domain.trackingHost ? { ...signers, publicUrl: `https://${domain.trackingHost}` } : signers;
  return { ...request, html: rewriteHtml(request.html, id, { open: !!domain.openTracking, click: !!domain.clickTracking }, linksOn) };
}

/** The signed message, byte for byte as it goes on the wire. */
export async function buildSignedMessage({ id, request, domain, text, messageId, date, attachments, signers }: MessageInput): Promise<Buffer> {
  const message = await composeMessage({ request: track(request, domain, id, signers), text, messageId, date, attachments });
  return signMessage(message, domain);
}
