// A delivery's states are named once (queue/delivery-status.ts) and held by the database
// (0057_delivery_status_check.sql): the list in code and the constraint agree, every status the
// SQL of src/ writes to or compares with `deliveries` is one of them, and the database refuses
// any other.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDb, type Db } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { DELIVERY_STATUSES } from '../../src/queue/delivery-status.js';
import { freshDatabase } from '../db/fresh-database.js';

const known = new Set<string>(DELIVERY_STATUSES);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f));
}

/** The SQL template strings of src/ that name the deliveries table, with their file. */
function deliveriesStatements(): { file: string; sql: string }[] {
  return sources('src')
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/`[^`]*`/g)].map((m) => ({ file, sql: m[0] })))
    .filter(({ sql }) => /\bdeliveries\b/.test(sql) && /\b(SELECT|UPDATE|INSERT|DELETE)\b/.test(sql));
}

/** Status literals compared or assigned in a statement: `status = 'x'`, `status <> 'x'`, `status IN ('x', …)`. */
function statusLiterals(sql: string): string[] {
  const single = [...sql.matchAll(/(?<![\w.])(?:d\.)?status\s*(?:=|<>|!=)\s*'([a-z_]+)'/g)].map((m) => m[1]!);
  const lists = [...sql.matchAll(/(?<![\w.])(?:d\.)?status\s+(?:NOT\s+)?IN\s*\(([^)]*)\)/gi)].flatMap((m) =>
    [...m[1]!.matchAll(/'([a-z_]+)'/g)].map((v) => v[1]!),
  );
  return [...single, ...lists];
}

describe("a delivery's states", () => {
  it('are the ones the migration allows', () => {
    const migration = fs.readFileSync('src/db/migrations/0057_delivery_status_check.sql', 'utf8');
    const allowed = [.../CHECK \(status IN \(([^)]*)\)\)/.exec(migration)![1]!.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
    assert.deepEqual(allowed.sort(), [...DELIVERY_STATUSES].sort());
  });

  it('are the only ones the SQL of src/ uses on deliveries', () => {
    const statements = deliveriesStatements();
    assert.ok(statements.length > 20, `found ${statements.length} statements on deliveries`);
    // Statements that also join a table with states of its own (emails, broadcasts…) name
    // those with their alias; an unqualified or `d.` status in them is the delivery's.
    const unknown = statements.flatMap(({ file, sql }) =>
      statusLiterals(sql)
        .filter((s) => !known.has(s))
        .map((s) => `${file}: '${s}'`),
    );
    assert.deepEqual(unknown, []);
  });

  describe('in the database', () => {
    let database: { url: string; drop(): Promise<void> };
    let db: Db;
    before(async () => {
      database = await freshDatabase();
      db = openDb(database.url, { max: 2 });
      await migrate(db);
    });
    after(async () => {
      await db?.close();
      await database?.drop();
    });

    it('refuses a status that is not one of them, naming the constraint', async () => {
      const [account] = await db.query<{ id: string }>(`INSERT INTO accounts (id, name) VALUES (gen_random_uuid(), 'test') RETURNING id`);
      const [email] = await db.query<{ id: string; account_id: string }>(
        `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, message_id, last_event)
         VALUES (gen_random_uuid(), $1, 'a@example.com', ARRAY['b@example.net'], 's', '<m@example.com>', 'sent') RETURNING id, account_id`,
        [account!.id],
      );
      const insert = (status: string) =>
        db.query(`INSERT INTO deliveries (email_id, account_id, recipient, domain, status) VALUES ($1, $2, 'b@example.net', 'example.net', $3)`, [
          email!.id,
          email!.account_id,
          status,
        ]);
      for (const status of DELIVERY_STATUSES) await insert(status);
      await assert.rejects(insert('sent'), /deliveries_status_known/);
    });
  });
});
