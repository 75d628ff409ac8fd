// A broadcast's merge tags in its editor: the tags the server sends with (GET
// /broadcasts/merge-tags, the list its send check reads), offered under the content; any other
// `{{{TAG}}}` flagged as it is typed, since sending would refuse it (422); and a template's
// content copied in with only tags that work (its variables are the API caller's, not a contact's).
import { useQuery } from '@tanstack/react-query';
import { type Answer, api, type Item } from '../api';
import { ErrorMessage } from '../components';

type MergeTag = Item<'/broadcasts/merge-tags'>;
type Template = Answer<'/templates/{id}'>;
/** A template variable a broadcast cannot fill, and the text(s) written in its place. */
export type Replaced = { key: string; values: string[] };

/** `{{{KEY}}}` or `{{{KEY|fallback}}}`, read as the server reads them (src/templates/variables.ts). */
const PLACEHOLDER = /\{\{\{\s*([A-Za-z0-9_]+)\s*(?:\|([^}]*))?\}\}\}/g;

const SOURCE_LABELS: Record<MergeTag['source'], string> = {
  contact_field: 'Contact fields',
  unsubscribe_link: 'Unsubscribe link',
  contact_property: 'Contact properties',
};

/** The query of the tags, for useQuery and for a template copied in before the page read them. */
export const mergeTagsQuery = {
  queryKey: ['broadcast-merge-tags'],
  queryFn: () => api<Answer<'/broadcasts/merge-tags'>>('GET', '/broadcasts/merge-tags'),
};

export const useMergeTags = () => useQuery(mergeTagsQuery);

/** The tags of `fields` (name → text) that are not in `known`, each with the fields it is in. */
export function unknownTags(fields: Record<string, string>, known: readonly MergeTag[]): { key: string; where: string[] }[] {
  const keys = new Set(known.map((t) => t.key));
  const found = new Map<string, string[]>();
  for (const [field, text] of Object.entries(fields)) {
    for (const [, key] of text.matchAll(PLACEHOLDER)) {
      if (keys.has(key!)) continue;
      const where = found.get(key!) ?? [];
      if (!where.includes(field)) where.push(field);
      found.set(key!, where);
    }
  }
  return [...found].map(([key, where]) => ({ key, where }));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A template's subject, html and text with each tag a broadcast cannot fill replaced by the
 * text it stands for when no value is given: its inline fallback, else its variable's fallback,
 * else nothing (as in html, escaped); `replaced` says which, for the page to tell.
 */
export function templateForBroadcast(t: Template, known: readonly MergeTag[]) {
  const keys = new Set(known.map((tag) => tag.key));
  const fallbacks = new Map(t.variables.map((v) => [v.key, v.fallback_value === null ? '' : String(v.fallback_value)]));
  const replaced = new Map<string, Set<string>>();
  const rewrite = (source: string, html: boolean) =>
    source.replace(PLACEHOLDER, (tag, key: string, inline: string | undefined) => {
      if (keys.has(key)) return tag;
      const value = inline ?? fallbacks.get(key) ?? '';
      replaced.set(key, (replaced.get(key) ?? new Set()).add(value));
      return html ? escapeHtml(value) : value;
    });
  return {
    subject: t.subject === null ? null : rewrite(t.subject, false),
    html: rewrite(t.html, true),
    text: t.text === null ? null : rewrite(t.text, false),
    replaced: [...replaced].map(([key, values]) => ({ key, values: [...values] })),
  };
}

const tag = (key: string) => `{{{${key}}}}`;

/** The tags the editor offers, grouped by where their value comes from. */
export function MergeTagList({ id, tags, error }: { id: string; tags: readonly MergeTag[] | undefined; error: unknown }) {
  return (
    <div className="hint" id={id}>
      <ErrorMessage error={error} />
      {tags && (
        <>
          Merge tags, filled from each contact (a fallback after a bar: <code>{'{{{FIRST_NAME|there}}}'}</code>):
          <ul className="merge-tags">
            {(Object.keys(SOURCE_LABELS) as MergeTag['source'][]).map((source) => {
              const keys = tags.filter((t) => t.source === source).map((t) => t.key);
              if (keys.length === 0) return null;
              return (
                <li key={source}>
                  {SOURCE_LABELS[source]}:{' '}
                  {keys.map((key, i) => (
                    <span key={key}>
                      {i > 0 && ', '}
                      <code>{tag(key)}</code>
                    </span>
                  ))}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </div>
  );
}

/** After a template was copied in: the tags of it a broadcast cannot fill, and what stands in their place. */
export function ReplacedTagsNotice({ replaced }: { replaced: Replaced[] }) {
  if (replaced.length === 0) return null;
  return (
    <div className="notice" role="status">
      <p>A broadcast fills merge tags from each contact, so the template's own variables were replaced by their fallback text:</p>
      <ul>
        {replaced.map((r) => (
          <li key={r.key}>
            <code>{tag(r.key)}</code> → {r.values.map((v) => (v === '' ? 'nothing (no fallback)' : `“${v}”`)).join(' or ')}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Said as the content is typed: the tags sending would refuse, and where they are. */
export function UnknownTagsWarning({ id, unknown }: { id: string; unknown: { key: string; where: string[] }[] }) {
  return (
    // Always in the page, so screen readers hear a warning appear.
    <div id={id} aria-live="polite">
      {unknown.length > 0 && (
        <p className="error">
          {unknown.length === 1 ? 'Unknown merge tag ' : 'Unknown merge tags '}
          {unknown.map((u, i) => (
            <span key={u.key}>
              {i > 0 && ', '}
              <code>{tag(u.key)}</code> (in {u.where.join(', ')})
            </span>
          ))}
          : the broadcast cannot be sent with {unknown.length === 1 ? 'it' : 'them'}. Use a merge tag listed above, or add a contact property of that key
          (Audience, Properties).
        </p>
      )}
    </div>
  );
}
