// Merge tags of a broadcast (resend-compat-notes §2.8): `{{{FIRST_NAME|there}}}`, the other
// contact fields, the account's contact properties, and `{{{RESEND_UNSUBSCRIBE_URL}}}`, in the
// subject, html, text and preview text. Rendered per contact at fan-out with the templates'
// renderer (src/templates/variables.ts), so values are HTML-escaped in html exactly as there.
//
// knownMergeTags is the one list of them: the send check reads it, and GET /broadcasts/merge-tags
// gives it to editors (the dashboard's). A tag that names none of these is an error when the
// broadcast is sent (POST /send, or create with send: true): 422 naming the tags, and nothing is
// scheduled. A draft may hold any tag, since the property it names may be defined later. A known
// tag with no value for a contact (no first name, no property value and no fallback) renders its
// inline fallback, else the empty string: one contact's missing name never stops a broadcast
// half-way.
import { validation } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { placeholderKeys, renderString, type RenderInput } from '../templates/variables.js';
import { escapeHtml } from '../message/escape-html.js';

/** Contact fields every contact has (EMAIL) or may have. */
const CONTACT_FIELDS = ['FIRST_NAME', 'LAST_NAME', 'EMAIL'];
/** The contact's unsubscribe link; UNSUBSCRIBE_URL is the reserved template name of it. */
export const UNSUBSCRIBE_TAGS = ['RESEND_UNSUBSCRIBE_URL', 'UNSUBSCRIBE_URL'];
/** Where a tag's value comes from, as GET /broadcasts/merge-tags says it. */
export const MERGE_TAG_SOURCES = ['contact_field', 'unsubscribe_link', 'contact_property'] as const;

interface MergeTag {
  key: string;
  source: (typeof MERGE_TAG_SOURCES)[number];
}

export interface BroadcastContent {
  subject: string;
  html: string | null;
  text: string | null;
  previewText: string | null;
}

function usedKeys(content: BroadcastContent): string[] {
  return [...new Set([content.subject, content.html, content.text, content.previewText].flatMap((s) => placeholderKeys(s)))];
}

/** Every tag a broadcast of the account may use: the contact fields, the unsubscribe link, then its contact properties by key. */
export async function knownMergeTags(q: Queryable, accountId: string): Promise<MergeTag[]> {
  const rows = await q.query<{ key: string }>('SELECT key FROM contact_properties WHERE account_id = $1', [accountId]);
  const tags: MergeTag[] = [
    ...CONTACT_FIELDS.map((key) => ({ key, source: 'contact_field' as const })),
    ...UNSUBSCRIBE_TAGS.map((key) => ({ key, source: 'unsubscribe_link' as const })),
  ];
  const builtIn = new Set(tags.map((t) => t.key));
  const properties = rows.map((r) => r.key).filter((key) => !builtIn.has(key));
  return [...tags, ...properties.sort().map((key) => ({ key, source: 'contact_property' as const }))];
}

/** 422 when the content uses a tag that is neither a contact field, a contact property of the account, nor the unsubscribe link. */
export async function checkMergeTags(q: Queryable, accountId: string, content: BroadcastContent): Promise<void> {
  const used = usedKeys(content);
  if (used.length === 0) return;
  const known = new Set((await knownMergeTags(q, accountId)).map((t) => t.key));
  const unknown = used.filter((key) => !known.has(key));
  if (unknown.length === 0) return;
  const tags = unknown.map((key) => `\`{{{${key}}}}\``).join(', ');
  throw validation(
    `Unknown merge tag${unknown.length > 1 ? 's' : ''} ${tags}: use ${[...CONTACT_FIELDS, UNSUBSCRIBE_TAGS[0]].join(', ')} ` +
      'or the key of a contact property (POST /contact-properties).',
  );
}

/** A renderer for one broadcast's content: call it per contact with the contact's variables. */
export function contentRenderer(content: BroadcastContent): (values: Record<string, string | number>) => BroadcastContent {
  // Every tag the content uses falls back to '' (after the contact's value and the inline fallback).
  const definitions: RenderInput['definitions'] = new Map(usedKeys(content).map((key) => [key, { type: 'string', fallback_value: '' }]));
  const render = (source: string | null, mode: 'html' | 'text') => (source === null ? null : renderString(source, { definitions, values }, mode));
  let values: Record<string, string | number> = {};
  return (contactValues) => {
    values = contactValues;
    const previewText = render(content.previewText, 'text');
    const html = render(content.html, 'html');
    return {
      subject: render(content.subject, 'text')!,
      html: html !== null && previewText ? withPreview(html, previewText) : html,
      text: render(content.text, 'text'),
      previewText,
    };
  };
}

/**
 * The preview text as the inbox shows it beside the subject: a hidden block at the start of
 * the body, which mail clients read as the first text of the message.
 */
function withPreview(html: string, previewText: string): string {
  const block = `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all">${escapeHtml(previewText)}</div>`;
  const body = /<body\b[^>]*>/i.exec(html);
  if (!body) return block + html;
  const at = body.index + body[0].length;
  return html.slice(0, at) + block + html.slice(at);
}
