// The Content-Security-Policy mail is shown under, wherever Postline renders an email's HTML
// (the dashboard's preview, http/mail-preview.ts; a shared email's page, share-email.ts):
// `sandbox`, so the document has no origin and runs nothing even when opened outside its frame;
// inline styles, images only from the message itself unless remote ones are asked for, no scripts.

export function mailContentPolicy(remote: boolean, frameAncestors = "'self'"): string {
  const anywhere = remote ? ' https: http:' : '';
  return [
    'sandbox',
    "default-src 'none'",
    `style-src 'unsafe-inline'${anywhere}`,
    `img-src data: cid:${anywhere}`,
    `font-src${anywhere || " 'none'"}`,
    `frame-ancestors ${frameAncestors}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
