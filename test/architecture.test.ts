// The architecture's rules, checked on every run (docs/ARCHITECTURE.md): dependencies point
// down the folder table, drivers and frameworks stay in their one folder, each table has its
// one writer where the document names one, files stay small enough to hold in mind.
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

/** The rows of docs/ARCHITECTURE.md's folder table, top first: each row's folders (and top-level files). */
function documentedLayers(): string[][] {
  const doc = readFileSync('docs/ARCHITECTURE.md', 'utf8');
  const table = doc.slice(doc.indexOf('## Folders'), doc.indexOf('## How an email flows'));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => [...line.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, '')));
}

/** The folder (or top-level file) of src/ that a relative import from `file` lands in. */
function targetFolder(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.relative('src', path.resolve(path.dirname(file), specifier)).split(path.sep);
  return target.length > 1 ? target[0] : target[0]!.replace(/\.js$/, '.ts');
}

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

  it('every folder of src/ is in the documented table, and imports only from rows below its own', () => {
    const layers = documentedLayers();
    const rowOf = new Map(layers.flatMap((folders, row) => folders.map((folder) => [folder, row] as const)));
    const undocumented = [...new Set(files.map((f) => f.folder))].filter((folder) => !rowOf.has(folder));
    assert.deepEqual(undocumented, [], 'folders missing from docs/ARCHITECTURE.md');
    const upward = files.flatMap((f) =>
      imports(f.text)
        .map((specifier) => targetFolder(f.file, specifier))
        .filter((target): target is string => target !== undefined && target !== f.folder && rowOf.get(target)! <= rowOf.get(f.folder)!)
        .map((target) => `${f.file} imports ${target}`),
    );
    assert.deepEqual(upward, []);
  });

  it('only the contact store writes contacts, segment memberships and topic choices', () => {
    const writes = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:contacts|segment_contacts|contact_topics)\b/i;
    const writers = files.filter((f) => writes.test(f.text)).map((f) => f.file);
    assert.deepEqual(writers, [path.join('src', 'audience', 'contact-store.ts')]);
  });

  it('no source file grows past 600 lines', () => {
    const large = files.filter((f) => f.text.split('\n').length > 600).map((f) => f.file);
    assert.deepEqual(large, []);
  });
});
