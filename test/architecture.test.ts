// The architecture's rules, checked on every run (docs/ARCHITECTURE.md): every folder of src/ sits
// in one tier of docs/ARCHITECTURE.md's "## Tiers" list, imports go within a tier or down, a few
// imports inside a tier are forbidden by design, drivers and frameworks stay in their one folder,
// each table has its one writer where the document names one, files stay small enough to hold
// in mind.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

const files = sources('src').map((file) => ({
  file,
  folder: path.relative('src', file).split(path.sep)[0]!,
  text: readFileSync(file, 'utf8'),
}));
const imports = (text: string) => [...text.matchAll(/^(?:import|export)[^'"]*?(?:from\s*)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

/** The tiers, top first. Which folder is in which is said once, in docs/ARCHITECTURE.md. */
const TIERS = ['entry', 'ingress', 'features', 'shared', 'platform'] as const;
type Tier = (typeof TIERS)[number];

/**
 * Imports the design forbids inside a tier, beyond the rule that a tier never imports a higher
 * one. `from` and `to` are folders of src/ (a top-level file by its name).
 */
const FORBIDDEN_WITHIN_TIER: { tier: Tier; rule: string; forbids: (from: string, to: string) => boolean }[] = [
  // HTTP and SMTP are two ways into the same accept pipeline and share it, not each other.
  { tier: 'ingress', rule: 'the ingresses do not import one another', forbids: () => true },
  // A feature builds on shared services; what two features both need belongs in the shared tier.
  { tier: 'features', rule: 'features do not import one another', forbids: () => true },
  // Every way in ends in the accept pipeline (emails/), which is built on the other shared
  // services: none of them calls it back.
  { tier: 'shared', rule: 'no shared service imports the accept pipeline (emails/)', forbids: (_from, to) => to === 'emails' },
];

/**
 * Imports of today's code that break the rules above, each allowed by name: the importing folder
 * and the one module of src/ it may import. Anything else between the same folders still fails.
 */
const EXCEPTIONS: { from: string; to: string; why: string }[] = [
  // features → features: received mail is filed into its inbox's thread (and an agent job
  // queued) inside inbound's receiving transaction, so the hook is called, not subscribed to.
  { from: 'inbound', to: 'inboxes/file-received.ts', why: 'filing into inbox threads in the receiving transaction' },
  // features → features: an automation's trigger and wait_for_event steps name a custom event,
  // checked by the same rules as POST /events.
  { from: 'automations', to: 'custom-events/event-fields.ts', why: 'event names checked as custom-events/ checks them' },
  // platform → shared: the queue gauges count deliveries with the queue's own SQL of its states,
  // so /metrics and GET /queue never disagree on what "deferred" means.
  { from: 'metrics', to: 'queue/states.ts', why: 'the queue gauges count with the queue view’s state SQL' },
];

/** docs/ARCHITECTURE.md's "## Tiers": each tier (a `### N. \`name\`` heading) with its folders (`- \`folder/\` — …` lines). */
function documentedTiers(): { tier: string; folders: string[] }[] {
  const doc = readFileSync('docs/ARCHITECTURE.md', 'utf8');
  const start = doc.indexOf('\n## Tiers');
  assert.ok(start >= 0, 'docs/ARCHITECTURE.md has no "## Tiers" section');
  const end = doc.indexOf('\n## ', start + 1);
  const tiers: { tier: string; folders: string[] }[] = [];
  for (const line of doc.slice(start, end < 0 ? undefined : end).split('\n')) {
    const heading = /^### \d+\. `([a-z-]+)`/.exec(line);
    if (heading) tiers.push({ tier: heading[1]!, folders: [] });
    const entry = /^- `([^`]+)`/.exec(line);
    if (entry && tiers.length > 0) tiers.at(-1)!.folders.push(entry[1]!.replace(/\/$/, ''));
  }
  return tiers;
}

/** The module of src/ (path from src/, `.ts`) that a relative import from `file` lands in. */
function targetModule(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return path
    .relative('src', path.resolve(path.dirname(file), specifier))
    .split(path.sep)
    .join('/')
    .replace(/\.js$/, '.ts');
}
const folderOf = (module: string) => module.split('/')[0]!;

/** Every import from one folder of src/ into another: file, the module it imports, both folders. */
const crossings = files.flatMap((f) =>
  imports(f.text)
    .map((specifier) => targetModule(f.file, specifier))
    .filter((module): module is string => module !== undefined && folderOf(module) !== f.folder)
    .map((module) => ({ file: f.file, from: f.folder, module, to: folderOf(module) })),
);

describe('architecture', () => {
  it('only src/db imports the PostgreSQL driver', () => {
    const offenders = files.filter((f) => f.folder !== 'db' && imports(f.text).some((i) => i === 'pg' || i.startsWith('pg/')));
    assert.deepEqual(
      offenders.map((f) => f.file),
      [],
    );
  });

  it('only src/http imports Fastify', () => {
    const offenders = files.filter((f) => f.folder !== 'http' && imports(f.text).some((i) => i === 'fastify' || i.startsWith('@fastify/')));
    assert.deepEqual(
      offenders.map((f) => f.file),
      [],
    );
  });

  // The entry points (main.ts, worker-thread-main.ts) and the composition root (server.ts,
  // worker-role.ts) may.
  it('concepts never import src/http or the composition root', () => {
    const offenders = files.filter(
      (f) =>
        !['http', 'server.ts', 'main.ts', 'worker-role.ts', 'worker-thread-main.ts'].includes(f.folder) &&
        imports(f.text).some((i) => /\/http\/|\/server\.js$/.test(i)),
    );
    assert.deepEqual(
      offenders.map((f) => f.file),
      [],
    );
  });

  const documented = documentedTiers();
  const tierOf = new Map<string, number>();
  for (const [rank, { folders }] of documented.entries()) for (const folder of folders) tierOf.set(folder, rank);
  const allowed = (c: { from: string; module: string }) => EXCEPTIONS.some((e) => e.from === c.from && e.to === c.module);

  it('docs/ARCHITECTURE.md lists the tiers the rules name, each folder of src/ in exactly one', () => {
    assert.deepEqual(
      documented.map((t) => t.tier),
      [...TIERS],
      'the "### N. `tier`" headings of docs/ARCHITECTURE.md\'s "## Tiers", top first',
    );
    const listed = documented.flatMap((t) => t.folders);
    assert.deepEqual(
      listed.filter((folder, i) => listed.indexOf(folder) !== i),
      [],
      'folders listed under more than one tier',
    );
    const present = [...new Set(files.map((f) => f.folder))];
    const missing = present.filter((folder) => !tierOf.has(folder));
    assert.deepEqual(
      missing,
      [],
      `src/ folders with no tier: add each as a line "- \`${missing[0]}${missing[0]?.endsWith('.ts') ? '' : '/'}\` — what it owns" under its tier in docs/ARCHITECTURE.md's "## Tiers"`,
    );
    assert.deepEqual(
      listed.filter((folder) => !present.includes(folder)),
      [],
      'docs/ARCHITECTURE.md lists folders src/ no longer has',
    );
  });

  it('imports stay within a tier or go down to a lower one', () => {
    const upward = crossings
      .filter((c) => tierOf.has(c.from) && tierOf.has(c.to) && tierOf.get(c.to)! < tierOf.get(c.from)! && !allowed(c))
      .map((c) => `${c.file} imports ${c.module}: ${TIERS[tierOf.get(c.from)!]} → ${TIERS[tierOf.get(c.to)!]}`);
    assert.deepEqual(upward, []);
  });

  it('imports inside a tier keep its rules', () => {
    const broken = crossings.flatMap((c) =>
      FORBIDDEN_WITHIN_TIER.filter(
        (r) => tierOf.get(c.from) === TIERS.indexOf(r.tier) && tierOf.get(c.to) === TIERS.indexOf(r.tier) && r.forbids(c.from, c.to) && !allowed(c),
      ).map((r) => `${c.file} imports ${c.module}: ${r.rule}`),
    );
    assert.deepEqual(broken, []);
  });

  it('every exception is still used', () => {
    const unused = EXCEPTIONS.filter((e) => !crossings.some((c) => c.from === e.from && c.module === e.to));
    assert.deepEqual(
      unused.map((e) => `${e.from} → ${e.to}`),
      [],
      'exceptions no import needs any more: remove them from EXCEPTIONS',
    );
  });

  it('folders import one another without cycles', () => {
    const edges = new Map<string, Set<string>>();
    for (const c of crossings) edges.set(c.from, (edges.get(c.from) ?? new Set()).add(c.to));
    const done = new Set<string>();
    const cycles: string[] = [];
    const visit = (folder: string, trail: string[]) => {
      if (trail.includes(folder)) return void cycles.push([...trail.slice(trail.indexOf(folder)), folder].join(' → '));
      if (done.has(folder)) return;
      for (const next of edges.get(folder) ?? []) visit(next, [...trail, folder]);
      done.add(folder);
    };
    for (const folder of edges.keys()) visit(folder, []);
    assert.deepEqual(cycles, []);
  });

  it('only the contact store writes contacts, segment memberships and topic choices', () => {
    const writes = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:contacts|segment_contacts|contact_topics)\b/i;
    const writers = files.filter((f) => writes.test(f.text)).map((f) => f.file);
    assert.deepEqual(writers, [path.join('src', 'audience', 'contact-store.ts')]);
  });

  it('only queue/ writes deliveries, by its named transitions', () => {
    const writes = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+deliveries\b/i;
    const writers = files.filter((f) => writes.test(f.text)).map((f) => f.file);
    assert.deepEqual(
      writers.filter((file) => path.dirname(file) !== path.join('src', 'queue')),
      [],
    );
  });

  it('only the accept pipeline writes emails, and the event writer their last_event', () => {
    const writes = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+emails\b/i;
    const writers = files.filter((f) => writes.test(f.text)).map((f) => f.file);
    assert.deepEqual(
      writers.filter((file) => path.dirname(file) !== path.join('src', 'emails') && file !== path.join('src', 'events', 'record-events.ts')),
      [],
    );
  });

  it('no source file grows past 600 lines', () => {
    const large = files.filter((f) => f.text.split('\n').length > 600).map((f) => f.file);
    assert.deepEqual(large, []);
  });
});
