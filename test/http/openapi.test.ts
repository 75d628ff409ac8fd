// GET /openapi.json as a client reads it: without an API key, a valid OpenAPI 3.1 document (a
// real validator), every operation of Resend's published description present (test/fixtures,
// a copy of the project's shared reference), Postline's own ones marked as additions, every
// route this node mounts described, each schema valid JSON Schema 2020-12, and every id in a
// path documented as one (its check, before the handler). And the description agrees with
// behaviour: for POST /emails, a body the schema accepts is sent, and one it refuses for a
// missing or unknown field is refused 422 by the server.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

// A copy of the project's shared reference (MIT, its LICENSE beside it), so a clone alone runs the suite.
const REFERENCE = new URL('../fixtures/resend-openapi.yaml', import.meta.url);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Resend operations the SDK (6.38) calls that its published description does not have yet: Resend's, not additions. */
const NEWER_THAN_REFERENCE = ['GET /usage'];

type Operation = Record<string, any>;

/** "METHOD /path/{}" for each operation: templates compared by their parameters' positions. */
function operations(document: any): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      if (item[method]) found.set(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`, item[method]);
    }
  }
  return found;
}

/** Every schema an operation carries: parameters', request bodies' and responses'. */
function schemasOf(operation: Operation): { where: string; schema: object }[] {
  const media = (content: Record<string, any> | undefined, where: string) =>
    Object.entries(content ?? {}).flatMap(([type, m]) => (m.schema ? [{ where: `${where} ${type}`, schema: m.schema }] : []));
  return [
    ...(operation.parameters ?? []).map((p: any) => ({ where: `${p.in} parameter ${p.name}`, schema: p.schema })),
    ...media(operation.requestBody?.content, 'request body'),
    ...Object.entries<any>(operation.responses ?? {}).flatMap(([status, r]) => media(r.content, `response ${status}`)),
  ];
}

describe('GET /openapi.json', () => {
  let t: TestPostline;
  let document: any;
  before(async () => {
    t = await startTestPostline();
    const res = await rawRequest(t, 'GET', '/openapi.json', { auth: null });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    document = res.body;
  });
  after(() => t?.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
  });

  it("has every path and method of Resend's published description", () => {
    assert.ok(existsSync(REFERENCE), `Resend's description is read from ${REFERENCE.pathname}`);
    const reference = operations(parse(readFileSync(REFERENCE, 'utf8')));
    const ours = operations(document);
    const missing = [...reference.keys()].filter((op) => !ours.has(op));
    assert.deepEqual(missing.sort(), [], 'Resend operations missing from /openapi.json');
  });

  it('marks exactly the operations Resend does not have as x-postline-addition', () => {
    const reference = operations(parse(readFileSync(REFERENCE, 'utf8')));
    for (const op of NEWER_THAN_REFERENCE) reference.set(op, {});
    const ours = operations(document);
    // Resend's inbox routes (private beta) are in the SDK and Resend's API reference pages but not
    // yet in its published OpenAPI description: Resend's, not additions.
    const resendBeyondReference = (op: string) => / \/inboxes(\/|$)/.test(op);
    const unmarked = [...ours].filter(([op, o]) => !reference.has(op) && !resendBeyondReference(op) && o['x-postline-addition'] !== true).map(([op]) => op);
    assert.deepEqual(unmarked, [], "Postline's own operations without x-postline-addition: true");
    const marked = [...ours].filter(([op, o]) => (reference.has(op) || resendBeyondReference(op)) && 'x-postline-addition' in o).map(([op]) => op);
    assert.deepEqual(marked, [], "Resend's operations marked as additions");
    assert.ok(ours.has('GET /openapi.json') && ours.get('GET /openapi.json')!['x-postline-addition'] === true);
  });

  // The check that no route is forgotten: each route the node mounts (server.ts) must carry a
  // doc (api/route.ts RouteDoc), or its operation has no summary and no success response.
  it('describes every route this node mounts', () => {
    const undescribed = [...operations(document)]
      .filter(([, o]) => !o.summary || !Object.keys(o.responses ?? {}).some((status) => /^[23]\d\d$/.test(status)))
      .map(([op]) => op);
    assert.deepEqual(undescribed, [], 'routes without a doc (add `doc` beside the handler)');
  });

  it('takes an API key on every route but the public ones, and answers errors in one shape', () => {
    assert.deepEqual(document.components.securitySchemes.bearerAuth, { ...document.components.securitySchemes.bearerAuth, type: 'http', scheme: 'bearer' });
    assert.deepEqual(document.security, [{ bearerAuth: [] }]);
    const ops = operations(document);
    for (const op of ['GET /healthz', 'GET /readyz', 'GET /openapi.json', 'GET /t/o/{}/{}', 'GET /downloads/attachments/{}']) {
      assert.deepEqual(ops.get(op)?.security, [], op);
    }
    assert.equal(ops.get('POST /emails')!.security, undefined);
    assert.deepEqual(document.components.schemas.Error.required, ['statusCode', 'message', 'name']);
    assert.ok(ops.get('POST /emails')!.parameters.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key'));
  });

  it('carries only valid JSON Schema 2020-12', () => {
    // strictRequired off: `oneOf: [{required: [a]}, {required: [b]}]` names properties declared beside it.
    const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allowUnionTypes: true, validateFormats: false });
    // Postline's extension keywords: a refused value's message, a missing field's, a whole error (api/request-schema.ts).
    ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
    ajv.addKeyword({ keyword: 'x-missing', schemaType: 'string' });
    ajv.addKeyword({ keyword: 'x-error', schemaType: 'object' });
    for (const [op, operation] of operations(document)) {
      for (const { where, schema } of schemasOf(operation)) {
        assert.doesNotThrow(() => ajv.compile(schema), `${op}: ${where}`);
      }
    }
  });

  // Path parameters are checked by their schemas before the handler runs (api/request-schema.ts),
  // and the handlers of id-only routes no longer judge an id's form: an id documented as any
  // string would reach them.
  it('documents every id in a path as a UUID (or its form), or says what else it takes', () => {
    const loose: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        for (const p of item[method].parameters ?? []) {
          const isId = p.in === 'path' && /(^id|_id|Id)$/.test(p.name);
          if (isId && p.schema.format !== 'uuid' && !p.schema.pattern && !p.description) loose.push(`${method.toUpperCase()} ${path}: ${p.name}`);
        }
      }
    }
    assert.deepEqual(loose, [], 'ids in paths documented as any string (`params: { id: uuid() }`)');
  });

  it('agrees with POST /emails: what its schema accepts is sent, a missing or unknown field is refused 422', async () => {
    const domain = await createVerifiedDomain(t, 'openapi.test');
    const schema = document.paths['/emails'].post.requestBody.content['application/json'].schema;
    const ajv = new Ajv2020({ strictTypes: false, allowUnionTypes: true, validateFormats: false });
    for (const keyword of ['x-message', 'x-missing']) ajv.addKeyword({ keyword, schemaType: 'string' });
    const matches = ajv.compile(schema);
    const valid = { from: `Postline <hello@${domain.name}>`, to: ['delivered@resend.dev'], subject: 'Described', html: '<p>Described</p>' };

    assert.ok(matches(valid), JSON.stringify(matches.errors));
    const sent = await rawRequest(t, 'POST', '/emails', { body: valid });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));

    // from, to and subject; a template may give from and subject instead.
    assert.ok(matches({ to: valid.to, template: { id: 'welcome' } }), JSON.stringify(matches.errors));
    for (const field of ['from', 'to', 'subject']) {
      const { [field]: _left, ...body } = valid as Record<string, unknown>;
      assert.equal(matches(body), false, `the schema takes a body without ${field}`);
      const res = await rawRequest(t, 'POST', '/emails', { body });
      assert.equal(res.status, 422, `${field}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.name, 'missing_required_field');
    }
    for (const body of [
      { ...valid, colour: 'blue' },
      { ...valid, template: { id: 'welcome' } },
    ]) {
      assert.equal(matches(body), false, JSON.stringify(body));
      const res = await rawRequest(t, 'POST', '/emails', { body });
      assert.equal(res.status, 422, JSON.stringify(res.body));
    }
  });
});
