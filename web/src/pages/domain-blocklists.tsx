// What the DNS blocklists last said (src/blocklists/view.ts): on a domain's page, of the domain
// and of the outbound addresses it sends from (GET /domains/:id `blocklists`); on the Queue page,
// of every outbound address (GET /queue `blocklists`). Per address or domain: each listing with
// its list, since when and the list's reason; each check the list refused ("check not possible")
// or did not answer; and the rest summed up as "not listed on N lists checked". Reads only what
// the last round found: the page asks no list itself.
import type { Answer } from '../api';
import { formatTime } from '../components';

type BlocklistCheck = Answer<'/queue'>['blocklists'][number];

interface Target {
  kind: BlocklistCheck['kind'];
  target: string;
  checks: BlocklistCheck[];
}

/** The checks by address or domain, in the API's order (listings first). */
function byTarget(checks: readonly BlocklistCheck[]): Target[] {
  const targets = new Map<string, Target>();
  for (const c of checks) {
    const key = `${c.kind} ${c.target}`;
    const found = targets.get(key) ?? { kind: c.kind, target: c.target, checks: [] };
    found.checks.push(c);
    targets.set(key, found);
  }
  return [...targets.values()];
}

const lists = (n: number) => `${n} ${n === 1 ? 'list' : 'lists'}`;

/**
 * The checks, one block per address or domain. `headingLevel`: the level of each block's
 * heading under the section's own. Nothing checked yet says why that may be.
 */
export function BlocklistChecks({ checks, empty, headingLevel = 'h3' }: { checks: readonly BlocklistCheck[]; empty: string; headingLevel?: 'h3' | 'h4' }) {
  if (checks.length === 0) return <p className="notice">{empty}</p>;
  const Heading = headingLevel;
  return (
    <div className="blocklists">
      {byTarget(checks).map((t) => {
        const listed = t.checks.filter((c) => c.result === 'listed');
        const clean = t.checks.filter((c) => c.result === 'not_listed');
        const refused = t.checks.filter((c) => c.result === 'not_possible');
        const silent = t.checks.filter((c) => c.result === 'unknown');
        const lastChecked =
          t.checks
            .map((c) => c.checked_at)
            .sort()
            .at(-1) ?? null;
        return (
          <div key={`${t.kind} ${t.target}`} className="blocklist-target" data-target={t.target}>
            <Heading>
              {t.kind === 'domain' ? 'Domain' : 'Address'} <code>{t.target}</code>{' '}
              {listed.length > 0 ? (
                <span className="status status-failed">listed on {lists(listed.length)}</span>
              ) : (
                <span className="status status-verified">not listed</span>
              )}
            </Heading>
            <ul className="blocklist-checks">
              {listed.map((c) => (
                <li key={c.zone} className="listed">
                  <strong>Listed on {c.zone}</strong> since {formatTime(c.first_listed_at)}
                  {c.reason ? <span className="hint block">{c.reason}</span> : <span className="hint block">The list gave no reason.</span>}
                </li>
              ))}
              {refused.map((c) => (
                <li key={c.zone}>
                  <strong>Check not possible on {c.zone}</strong>:{' '}
                  {c.reason ?? 'the list refused to answer; ask the lists through a resolver of your own (POSTLINE_DNS_SERVERS)'}. This is not a listing.
                </li>
              ))}
              {silent.map((c) => (
                <li key={c.zone}>
                  <strong>No answer from {c.zone}</strong> at the last check{c.error ? ` (${c.error})` : ''}; before that it was{' '}
                  {c.listed ? `listed since ${formatTime(c.first_listed_at)}` : 'not listed'}.
                </li>
              ))}
              {clean.length > 0 && (
                <li>
                  {listed.length + refused.length + silent.length > 0 ? 'Not listed on the other' : 'Not listed on'} {lists(clean.length)} checked
                  <span className="hint block">{clean.map((c) => c.zone).join(', ')}</span>
                </li>
              )}
            </ul>
            <p className="hint">Last checked {formatTime(lastChecked)}.</p>
          </div>
        );
      })}
    </div>
  );
}
