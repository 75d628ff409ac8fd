// The small HTML pages behind an unsubscribe link: the preference page (unsubscribe from all
// mail, or choose topics), the confirmation after a change, and the page for a link that is
// not valid. Self-contained (inline CSS, no script, no external resources), every value
// escaped. The forms post back to the page's own URL, whose signature is the credential.
import type { Preferences } from './unsubscribe-preferences.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;color:#1f2328;margin:0}
main{max-width:32rem;margin:3rem auto;background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:2rem}
h1{font-size:1.3rem;margin:0 0 1rem}p{line-height:1.5}label{display:block;margin:.6rem 0}small{color:#656d76;display:block;margin-left:1.6rem}
button{font:inherit;padding:.55rem 1rem;border-radius:6px;border:1px solid #d0d7de;background:#f6f8fa;cursor:pointer;margin-top:.8rem}
button.primary{background:#1f2328;color:#fff;border-color:#1f2328}hr{border:0;border-top:1px solid #e3e6ea;margin:1.5rem 0}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

export function preferencesPage(prefs: Preferences): string {
  const { contact, topics } = prefs;
  const intro = contact.unsubscribed
    ? `<p><strong>${esc(contact.email)}</strong> is unsubscribed and receives no broadcasts.</p>
<form method="post"><input type="hidden" name="action" value="resubscribe"><button type="submit">Subscribe again</button></form>`
    : `<p>Email preferences for <strong>${esc(contact.email)}</strong>.</p>
<form method="post"><input type="hidden" name="action" value="unsubscribe_all"><button class="primary" type="submit">Unsubscribe from all emails</button></form>`;
  const choices = topics.length
    ? `<hr><form method="post"><input type="hidden" name="action" value="topics"><p>Or choose what you receive:</p>
${topics
  .map(
    (t) =>
      `<label><input type="checkbox" name="topic" value="${esc(t.id)}"${t.subscribed ? ' checked' : ''}> ${esc(t.name)}` +
      `${t.description ? `<small>${esc(t.description)}</small>` : ''}</label>`,
  )
  .join('\n')}
<button type="submit">Save preferences</button></form>`
    : '';
  return layout('Email preferences', `<h1>Email preferences</h1>${intro}${choices}`);
}

export function donePage(message: string): string {
  return layout('Email preferences', `<h1>Email preferences</h1><p>${esc(message)}</p>`);
}

export function invalidLinkPage(): string {
  return layout(
    'Link not valid',
    '<h1>This link is not valid</h1><p>The unsubscribe link is incomplete, or the address it was made for is no longer on the list.</p>',
  );
}
