// The architecture's rules, checked on every run (docs/ARCHITECTURE.md, "Invariants"):
// dependencies point downward, drivers and frameworks stay in their one folder, files stay
// small enough to hold in mind.
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
const imports = (text: string) => [...text.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

describe('architecture', () => {
  it('only src/db imports the PostgreSQL driver', () => {
    const offenders = files.filter((f) => f.folder !== 'db' && imports(f.text).some((i) => i === 'pg' || i.startsWith('pg/')));
    assert.deepEqual(offenders.map((f) => f.file), []);
  });

  it('only src/http imports Fastify', () => {
    const offenders = files.filter((f) => f.folder !== 'http' && imports(f.text).some((i) => i === 'fastify' || i.startsWith('@fastify/')));
    assert.deepEqual(offenders.map((f) => f.file), []);
  });

  // The entry points (main.ts, worker-thread-main.ts) and the composition root (server.ts,
  // worker-role.ts) may.
  it('concepts never import src/http or the composition root', () => {
    const offenders = files.filter(
      (f) => !['http', 'server.ts', 'main.ts', 'worker-role.ts', 'worker-thread-main.ts'].includes(f.folder) && imports(f.text).some((i) => /\/http\/|\/server\.js$/.test(i)),
    );
    assert.deepEqual(offenders.map((f) => f.file), []);
  });

  it('no source file grows past 600 lines', () => {
    const large = files.filter((f) => f.text.split('\n').length > 600).map((f) => f.file);
    assert.deepEqual(large, []);
  });
});
