// The operator contract: the README's table generated from the settings, unknown variables
// warned about, and the durations read from a given environment (never the process's): the units, a bare number as
// seconds, the defaults, comma-separated retry schedules, and every malformed or zero value
// stopping start-up with a ConfigError that names the variable.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, configurationTable, loadConfig, SETTINGS, unknownVariables } from '../src/config.js';
import { generatedPart } from '../scripts/generated-docs.js';

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

/** The value loadConfig makes of POSTLINE_MAX_QUEUE_AGE, a plain parseDuration setting. */
const duration = (raw: string) => loadConfig({ POSTLINE_MAX_QUEUE_AGE: raw }).maxQueueAgeMs;
const refuses = (env: NodeJS.ProcessEnv, message: string) =>
  assert.throws(
    () => loadConfig(env),
    (err: any) => err instanceof ConfigError && err.message === message,
    JSON.stringify(env),
  );

describe('unit: config durations', () => {
  it('reads ms, s, m, h and d, with or without a space', () => {
    assert.equal(duration('250ms'), 250);
    assert.equal(duration('45s'), 45 * S);
    assert.equal(duration('30m'), 30 * M);
    assert.equal(duration('12h'), 12 * H);
    assert.equal(duration('3d'), 3 * D);
    assert.equal(duration('1 d'), D);
    assert.equal(duration('10 ms'), 10);
  });

  it('reads a bare number as seconds, leading zeros included', () => {
    assert.equal(duration('45'), 45 * S);
    assert.equal(duration('00010'), 10 * S);
  });

  it('reads decimals and surrounding whitespace', () => {
    assert.equal(duration(' 1.5h '), 90 * M);
    assert.equal(duration('0.5d'), 12 * H);
    assert.equal(duration('3d\n'), 3 * D);
  });

  it('uses the defaults when a variable is unset or empty', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.maxQueueAgeMs, 3 * D);
    assert.equal(defaults.downloadUrlTtlMs, 60 * M);
    assert.equal(defaults.smtpTimeoutMs, 60 * S);
    assert.equal(defaults.smtpDataTimeoutMs, 10 * M);
    assert.equal(defaults.webhookTimeoutMs, 15 * S);
    assert.equal(defaults.webhookDisableAfterMs, 5 * D);
    assert.equal(defaults.attachmentFetchTimeoutMs, 10 * S);
    assert.equal(loadConfig({ POSTLINE_MAX_QUEUE_AGE: '' }).maxQueueAgeMs, 3 * D);
  });

  it('refuses other units, upper case, signs, exponents, combined parts and words, naming the variable', () => {
    for (const raw of ['1w', '1D', '-1s', '+1s', '1e3', '1h30m', '1 hour', 'abc', '.5s', '1.s', '١s', '3 d s']) {
      refuses({ POSTLINE_MAX_QUEUE_AGE: raw }, `POSTLINE_MAX_QUEUE_AGE: "${raw}" is not a duration like 3d, 12h, 30m or 45s`);
    }
  });

  it('names whichever variable holds the bad value', () => {
    refuses({ POSTLINE_SMTP_TIMEOUT: '1 minute' }, 'POSTLINE_SMTP_TIMEOUT: "1 minute" is not a duration like 3d, 12h, 30m or 45s');
    refuses({ POSTLINE_WEBHOOK_TIMEOUT: 'soon' }, 'POSTLINE_WEBHOOK_TIMEOUT: "soon" is not a duration like 3d, 12h, 30m or 45s');
  });

  it('refuses a retention of 0, which would delete every received message at once', () => {
    refuses({ POSTLINE_RECEIVED_RETENTION: '0' }, 'POSTLINE_RECEIVED_RETENTION must be longer than 0');
    refuses({ POSTLINE_RECEIVED_RETENTION: '0d' }, 'POSTLINE_RECEIVED_RETENTION must be longer than 0');
    assert.equal(loadConfig({ POSTLINE_RECEIVED_RETENTION: '1ms' }).receivedRetentionMs, 1);
  });
  // Node's timers hold at most 2^31-1 ms (about 24.8 days) and run a longer one after 1 ms:
  // POSTLINE_WEBHOOK_TIMEOUT=25d would time every request out at once.
  it('refuses a timeout longer than a Node timer can hold (2^31-1 ms)', () => {
    assert.throws(() => loadConfig({ POSTLINE_ATTACHMENT_FETCH_TIMEOUT: '25d' }), ConfigError);
    assert.throws(() => loadConfig({ POSTLINE_WEBHOOK_TIMEOUT: '25d' }), ConfigError);
    assert.throws(() => loadConfig({ POSTLINE_SMTP_TIMEOUT: '25d' }), ConfigError);
  });
});

describe('unit: config retry schedules', () => {
  it("uses Postline's delivery schedule and Resend's webhook schedule by default", () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.retryDelaysMs, [1 * M, 5 * M, 15 * M, 30 * M, 1 * H, 2 * H, 4 * H]);
    assert.deepEqual(defaults.webhookRetryDelaysMs, [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
  });

  it('reads comma-separated durations, spaces around them included, and a single one', () => {
    assert.deepEqual(loadConfig({ POSTLINE_RETRY_DELAYS: ' 10s , 1m,2h ' }).retryDelaysMs, [10 * S, M, 2 * H]);
    assert.deepEqual(loadConfig({ POSTLINE_WEBHOOK_RETRY_DELAYS: '30' }).webhookRetryDelaysMs, [30 * S]);
  });

  it('refuses a zero delay and an empty item', () => {
    refuses({ POSTLINE_RETRY_DELAYS: '1m,0s' }, 'POSTLINE_RETRY_DELAYS: every delay must be > 0');
    refuses({ POSTLINE_RETRY_DELAYS: '1m,,5m' }, 'POSTLINE_RETRY_DELAYS: "" is not a duration like 3d, 12h, 30m or 45s');
    refuses({ POSTLINE_WEBHOOK_RETRY_DELAYS: '5s,' }, 'POSTLINE_WEBHOOK_RETRY_DELAYS: "" is not a duration like 3d, 12h, 30m or 45s');
  });
});

describe('unit: the configuration table', () => {
  it("is the README's, generated from the settings the code reads (npm run docs)", () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    assert.equal(generatedPart(readme, 'config-table'), configurationTable(), 'README.md is out of date: run `npm run docs`');
  });

  it('names every variable once, POSTLINE_BODY_LIMIT among them', () => {
    const variables = Object.values(SETTINGS).map((s) => s.variable);
    assert.equal(new Set(variables).size, variables.length);
    assert.ok(variables.includes('POSTLINE_BODY_LIMIT'));
  });

  it('is the only reader of variables in src/ (a child process may inherit the environment)', () => {
    const readers = fs
      .readdirSync(new URL('../src/', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'config.ts')
      .filter((file) => /process\.env(\.|\[)/.test(fs.readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8')));
    assert.deepEqual(readers, []);
  });

  it('warns about POSTLINE_ variables that no setting reads (typos)', () => {
    assert.deepEqual(unknownVariables({ POSTLINE_RATE_LIMIT: '5', POSTLINE_RATE_LIMT: '5', PATH: '/bin' }), ['POSTLINE_RATE_LIMT']);
  });

  it('stops start-up on an invalid value with a message naming the variable', () => {
    refuses({ POSTLINE_RATE_LIMIT: 'ten' }, 'POSTLINE_RATE_LIMIT must be an integer ≥ 1, got "ten"');
    refuses({ POSTLINE_SMTP_PORTS: '25,x' }, 'POSTLINE_SMTP_PORTS: "x" is not a port');
    refuses({ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must start with postgres:// or postgresql://');
    refuses({ POSTLINE_WORKER_THREAD: 'maybe' }, 'POSTLINE_WORKER_THREAD must be true or false, got "maybe"');
    refuses({ POSTLINE_ACME_CHALLENGE: 'dns-01' }, 'POSTLINE_ACME_CHALLENGE must be http-01 or tls-alpn-01, got "dns-01"');
  });

  it("refuses tls-alpn-01 beside the tracking hosts' HTTPS listener, which holds port 443", () => {
    const acme = { POSTLINE_ACME_EMAIL: 'ops@example.com', POSTLINE_HTTPS_PORT: '443' };
    assert.equal(loadConfig(acme).acmeChallenge, 'http-01');
    assert.throws(
      () => loadConfig({ ...acme, POSTLINE_ACME_CHALLENGE: 'tls-alpn-01' }),
      /POSTLINE_ACME_CHALLENGE=tls-alpn-01 needs port 443, where POSTLINE_HTTPS_PORT/,
    );
    assert.equal(loadConfig({ POSTLINE_ACME_EMAIL: 'ops@example.com', POSTLINE_ACME_CHALLENGE: 'TLS-ALPN-01' }).acmeChallenge, 'tls-alpn-01');
  });
});

describe('unit: config of the inbox agent', () => {
  it('calls no model by default', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.agentUrl, undefined);
    assert.equal(defaults.agentTimeoutMs, 60 * S);
    assert.deepEqual(defaults.agentRetryDelaysMs, [30 * S, 2 * M, 10 * M, 30 * M]);
  });

  it('needs a model with the endpoint, and an http(s) URL', () => {
    refuses({ POSTLINE_AGENT_URL: 'https://models.example/v1/chat/completions' }, 'POSTLINE_AGENT_MODEL must be set with POSTLINE_AGENT_URL');
    refuses({ POSTLINE_AGENT_URL: 'ftp://models.example/', POSTLINE_AGENT_MODEL: 'm' }, 'POSTLINE_AGENT_URL must start with http:// or https://');
    const config = loadConfig({ POSTLINE_AGENT_URL: 'http://127.0.0.1:8080/v1/chat/completions', POSTLINE_AGENT_MODEL: 'm', POSTLINE_AGENT_API_KEY: ' k ' });
    assert.equal(config.agentModel, 'm');
    assert.equal(config.agentApiKey, 'k');
  });
});
