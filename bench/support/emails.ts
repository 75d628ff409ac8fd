// The emails the benches send: a transactional-looking message with ~2 KB of HTML (the size
// the peers' smtp-source uses for its body), html only, so Postline derives the text part as
// it does for most Resend users. Every email has its own subject and recipient.
import { RECIPIENT_DOMAIN, SENDING_DOMAIN } from './sending-domain.js';

const PARAGRAPH =
  '<p style="margin:0 0 12px;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:22px;color:#333">' +
  'Thanks for your order. We are getting it ready and will let you know as soon as it ships. ' +
  'You can review the items, the delivery address and the invoice in your account at any time.</p>';

function html(i: number): string {
  const head = `<!doctype html><html><body><table role="presentation" width="100%"><tr><td><h1 style="font-size:20px">Order #${i}</h1>`;
  const tail = `<p><a href="https://shop.example.com/orders/${i}">View your order</a></p></td></tr></table></body></html>`;
  let body = head;
  while (body.length + PARAGRAPH.length + tail.length < 2048) body += PARAGRAPH;
  return body + tail;
}

export const HTML_BYTES = Buffer.byteLength(html(1));

export function email(i: number, recipientDomain = RECIPIENT_DOMAIN) {
  return {
    from: `Postline Bench <orders@${SENDING_DOMAIN}>`,
    to: [`customer-${i}@${recipientDomain}`],
    subject: `Your order #${i} is confirmed`,
    html: html(i),
  };
}

/** A JSON body for POST /emails/batch: `size` emails numbered from `first`. */
export function batchBody(first: number, size: number, recipientDomain?: string): Buffer {
  return Buffer.from(JSON.stringify(Array.from({ length: size }, (_, k) => email(first + k, recipientDomain))));
}

export function singleBody(i: number): Buffer {
  return Buffer.from(JSON.stringify(email(i)));
}
