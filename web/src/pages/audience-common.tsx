// What the audience pages (Audience.tsx, AudienceLists.tsx, ContactImports.tsx) and the
// broadcast composer share: the API's shapes of segments, topics and contacts (api-types.ts),
// the tabs between the audience's sub-pages, and a query string builder.
import type { Item } from '../api';
import { follow } from '../router';

export type Segment = Item<'/segments'>;
export type Topic = Item<'/topics'>;
export type ContactSummary = Item<'/contacts'>;

/** `?a=1&b=2` of the defined values ('' without any). */
export function qs(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const fullName = (c: Pick<ContactSummary, 'first_name' | 'last_name'>) => [c.first_name, c.last_name].filter(Boolean).join(' ');

const TABS = [
  { path: '/audience', title: 'Contacts' },
  { path: '/audience/segments', title: 'Segments' },
  { path: '/audience/topics', title: 'Topics' },
  { path: '/audience/properties', title: 'Properties' },
  { path: '/audience/imports', title: 'Imports' },
];

/** The audience's sub-pages as tabs: links, the current one marked for screen readers too. */
export function AudienceTabs({ path }: { path: string }) {
  const current = TABS.slice(1).find((t) => path === t.path || path.startsWith(`${t.path}/`)) ?? TABS[0]!;
  return (
    <nav aria-label="Audience" className="tabs">
      <ul>
        {TABS.map((t) => (
          <li key={t.path}>
            <a href={`/dashboard${t.path}`} onClick={follow(t.path)} aria-current={t === current ? 'page' : undefined}>
              {t.title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
