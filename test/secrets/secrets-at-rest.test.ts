// A stolen database holds no usable secret: DKIM private keys, webhook signing secrets and the
// URL-signing secret are sealed with POSTLINE_SECRET_KEY (src/secrets/), so a dump of the
// database shows none of them, while mail is still signed and webhooks still verify. A node with
// the wrong key refuses to start, naming the variable; secrets an older version stored in plain
// text are sealed at the next start; `postline secrets rotate` (the real command, beside the
// running server) moves everything to a new key, resumably, and retires the old one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { loadSecretBox } from '../../src/secrets/secret-key.js';
import { rotateStoredSecrets } from '../../src/secrets/stored-secrets.js';
import { baseEnv, runCli } from '../cli/postline-process.js';
import { eventually, publishMx, verifyDkim } from '../delivery/support.js';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, TEST_SECRET_KEY, type TestPostline } from '../support/postline.js';

const NEW_KEY = crypto.randomBytes(32).toString('base64');

describe('secrets at rest', () => {
  let t: TestPostline;
  let webhookSecret: string;
  let pem: string;

  const send = async (to: string) => {
    const { data, error } = await t.resend.emails.send({ from: 'Ops <ops@sealed.test>', to, subject: 'Signed', text: 'Still signed.' });
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };
  const lastMessageSigned = async (to: string) => {
    await eventually(async () => t.sink.messages.some((m) => m.to.includes(to)), 15_000, `mail to ${to}`);
    const dkim = await verifyDkim(t, t.sink.messages.find((m) => m.to.includes(to))!.raw);
    assert.ok(
      dkim.some((d) => d.result === 'pass' && d.domain === 'sealed.test'),
      JSON.stringify(dkim),
    );
  };
  const stored = async () => {
    const [domain] = await t.sql(`SELECT dkim_private_key FROM domains WHERE name = 'sealed.test'`);
    const webhooks = await t.sql('SELECT signing_secret FROM webhooks');
    const secrets = await t.sql('SELECT secret FROM server_secrets');
    return [domain.dkim_private_key, ...webhooks.map((w) => w.signing_secret), ...secrets.map((s) => s.secret)] as string[];
  };

  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'sealed.test');
    publishMx(t, 'inbox.test');
    const created = await t.resend.webhooks.create({ endpoint: 'https://hooks.example.com/postline', events: ['email.sent'] });
    assert.equal(created.error, null, JSON.stringify(created.error));
    webhookSecret = created.data!.signing_secret;
    await send('first@inbox.test'); // makes the URL-signing secret too (tracking, downloads)
    await lastMessageSigned('first@inbox.test');
  });
  after(() => t?.stop());

  it('stores every secret sealed: a dump of the database holds none of them', async () => {
    for (const value of await stored()) assert.match(value, /^plsec1\./);
    const dump = await dumpDatabase(t);
    assert.ok(dump.length > 10_000, 'the dump holds the data');
    assert.ok(!dump.includes('PRIVATE KEY'), 'no PEM private key');
    assert.ok(!dump.includes(webhookSecret), 'no webhook signing secret');
    assert.ok(!dump.includes(webhookSecret.replace(/^whsec_/, '')), "not even the secret's key part");
    // The API still gives the secret back, as Resend's does.
    const got = await t.resend.webhooks.get((await t.resend.webhooks.list()).data!.data[0]!.id);
    assert.equal(got.data?.signing_secret, webhookSecret);
  });

  it('refuses to start with the wrong key, naming the variable, and starts again with the right one', async () => {
    await t.postline.stop();
    await assert.rejects(
      t.restart({ POSTLINE_SECRET_KEY: crypto.randomBytes(32).toString('base64') }),
      (err: Error) => err instanceof ConfigError && /POSTLINE_SECRET_KEY/.test(err.message) && /sealed with key/.test(err.message),
    );
    await t.restart({ POSTLINE_SECRET_KEY: TEST_SECRET_KEY });
    await send('second@inbox.test');
    await lastMessageSigned('second@inbox.test');
  });

  it('seals at start what an older version stored in plain text', async () => {
    // As a database from before sealed secrets holds it: the PEM itself.
    pem = crypto.generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'der' },
    }).privateKey as unknown as string;
    const publicKey = crypto.createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64');
    await t.sql(`UPDATE domains SET dkim_private_key = $1, dkim_public_key = $2 WHERE name = 'sealed.test'`, [pem, publicKey]);
    t.dns.set(`postline._domainkey.sealed.test`, { TXT: [`v=DKIM1; k=rsa; p=${publicKey}`] });
    await t.restart();
    for (const value of await stored()) assert.match(value, /^plsec1\./);
    await send('third@inbox.test');
    await lastMessageSigned('third@inbox.test');
  });

  it('rotates to a new key while running: old and new both open meanwhile, then the old one retires', async () => {
    // Every node restarted with the new key, the old one still accepted.
    await t.restart({ POSTLINE_SECRET_KEY: NEW_KEY, POSTLINE_SECRET_KEY_PREVIOUS: TEST_SECRET_KEY });
    const oldId = (await stored())[0]!.split('.')[1];
    const env = baseEnv({ DATABASE_URL: t.postline.databaseUrl, POSTLINE_SECRET_KEY: NEW_KEY, POSTLINE_SECRET_KEY_PREVIOUS: TEST_SECRET_KEY });
    const rotated = await runCli(['secrets', 'rotate'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.stdout, /^\d+ secret\(s\) re-wrapped under key \S+; retired key\(s\) \S+: POSTLINE_SECRET_KEY_PREVIOUS may go\n$/);
    const newIds = new Set((await stored()).map((v) => v.split('.')[1]));
    assert.equal(newIds.size, 1);
    assert.ok(!newIds.has(oldId));
    assert.deepEqual(
      (await t.sql('SELECT retired_at IS NOT NULL AS retired FROM secret_keys WHERE key_id = $1', [oldId])).map((r) => r.retired),
      [true],
    );
    // Run again: nothing left to do, nothing broken (an interrupted rotation is finished this way).
    const again = await runCli(['secrets', 'rotate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^0 secret\(s\) re-wrapped .*every secret was under it already\n$/);

    // The old key is no longer needed, and no longer enough.
    await t.restart({ POSTLINE_SECRET_KEY: NEW_KEY, POSTLINE_SECRET_KEY_PREVIOUS: '' });
    await send('fourth@inbox.test');
    await lastMessageSigned('fourth@inbox.test');
    const got = await t.resend.webhooks.get((await t.resend.webhooks.list()).data!.data[0]!.id);
    assert.equal(got.data?.signing_secret, webhookSecret);
    await t.postline.stop();
    await assert.rejects(t.restart({ POSTLINE_SECRET_KEY: TEST_SECRET_KEY }), /POSTLINE_SECRET_KEY/);
    await t.restart({ POSTLINE_SECRET_KEY: NEW_KEY });
  });

  it('finishes a rotation interrupted half-way (a crash) by running it again, losing nothing', async () => {
    const third = crypto.randomBytes(32).toString('base64');
    await t.restart({ POSTLINE_SECRET_KEY: third, POSTLINE_SECRET_KEY_PREVIOUS: NEW_KEY });
    // A rotation that dies after its first batch of re-wrapped values, as a killed process would.
    let writes = 0;
    const dying: Db = {
      ...t.postline.db,
      query: async (sql: string, params?: unknown[]) => {
        if (/^\s*UPDATE/.test(sql) && ++writes > 1) throw new Error('killed');
        return t.postline.db.query(sql, params);
      },
    } as Db;
    const box = loadSecretBox({ ...t.postline.config, secretKey: third, secretKeyPrevious: [NEW_KEY] });
    await assert.rejects(rotateStoredSecrets(dying, box), /killed/);
    const ids = new Set((await stored()).map((v) => v.split('.')[1]));
    assert.equal(ids.size, 2, 'half-way: some values under the new key, some under the old');
    // Everything still works meanwhile, then the rotation is run again and finishes.
    await send('fifth@inbox.test');
    await lastMessageSigned('fifth@inbox.test');
    const env = baseEnv({ DATABASE_URL: t.postline.databaseUrl, POSTLINE_SECRET_KEY: third, POSTLINE_SECRET_KEY_PREVIOUS: NEW_KEY });
    const finished = await runCli(['secrets', 'rotate'], env);
    assert.equal(finished.code, 0, finished.stderr);
    assert.match(finished.stdout, /retired key\(s\)/);
    assert.equal(new Set((await stored()).map((v) => v.split('.')[1])).size, 1);
    await t.restart({ POSTLINE_SECRET_KEY: third, POSTLINE_SECRET_KEY_PREVIOUS: '' });
    const got = await t.resend.webhooks.get((await t.resend.webhooks.list()).data!.data[0]!.id);
    assert.equal(got.data?.signing_secret, webhookSecret, 'nothing lost');
  });

  it('refuses a malformed key and, with DATABASE_URL, a missing one', async () => {
    const env = baseEnv({ DATABASE_URL: t.postline.databaseUrl, POSTLINE_SECRET_KEY: 'too short' });
    const malformed = await runCli(['secrets', 'rotate'], env);
    assert.equal(malformed.code, 1);
    assert.match(malformed.stderr, /POSTLINE_SECRET_KEY must be 32 bytes in base64 or hex/);
    const missing = await runCli(['secrets', 'rotate'], { ...env, POSTLINE_SECRET_KEY: '' });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /POSTLINE_SECRET_KEY \(or POSTLINE_SECRET_KEY_FILE\) must be set with DATABASE_URL/);
  });
});

/**
 * The database as `pg_dump` writes it. The machine's pg_dump cannot read a newer server (the
 * embedded one may be): then every table's rows, read as pg_dump's COPY reads them.
 */
async function dumpDatabase(t: TestPostline): Promise<string> {
  const [{ server_version_num: server }] = await t.sql('SHOW server_version_num');
  const client = await promisify(execFile)('pg_dump', ['--version']).catch(() => undefined);
  const clientMajor = Number(/(\d+)\./.exec(client?.stdout ?? '')?.[1] ?? 0);
  if (clientMajor >= Math.floor(Number(server) / 10000)) {
    const { stdout } = await promisify(execFile)('pg_dump', ['--no-owner', t.postline.databaseUrl], { maxBuffer: 512 * 1024 * 1024 });
    return stdout;
  }
  const tables = await t.sql(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  const parts: string[] = [];
  for (const { tablename } of tables) {
    const rows = await t.sql(`SELECT t::text AS row FROM ${tablename} t`);
    parts.push(`-- ${tablename}\n${rows.map((r) => r.row).join('\n')}`);
  }
  return parts.join('\n');
}
