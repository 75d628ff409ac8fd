// Hostile HTTP requests for every route Postline serves, as fast-check arbitraries: the routes
// come from GET /openapi.json (the description of what the node mounts), so a new route is
// fuzzed without a change here. Each request is built as bytes: paths and queries with
// percent-encoded invalid UTF-8 and lone surrogates, bodies with raw invalid UTF-8, deep and
// huge JSON, wrong media types, and values that mostly follow the route's schema (so requests
// get past the first check) with hostile ones mixed in at every level.
// Used by test/http/fuzz-every-route.test.ts and bench/fuzz-routes.ts.
import fc from 'fast-check';

type Schema = Record<string, any>;

export interface FuzzRoute {
  method: string;
  /** The OpenAPI path: `/emails/{id}`. */
  template: string;
  params: string[];
  query: Record<string, Schema>;
  headers: string[];
  /** Body media types and their schemas; empty for a route that reads no body. */
  bodies: { type: string; schema: Schema }[];
  /** Documented as an HTML page (the unsubscribe page): its refusals may be pages too. */
  page: boolean;
}

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'];

/** Every operation of the OpenAPI document, and the dashboard's files, which it does not describe (http/dashboard.ts). */
export function routesOf(openapi: any): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  for (const [template, item] of Object.entries<any>(openapi.paths)) {
    for (const method of METHODS) {
      const op = item[method.toLowerCase()];
      if (!op) continue;
      const parameters: any[] = op.parameters ?? [];
      const success = Object.entries<any>(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
      routes.push({
        method,
        template,
        params: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        query: Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}])),
        headers: parameters.filter((p) => p.in === 'header').map((p) => p.name),
        bodies: Object.entries<any>(op.requestBody?.content ?? {}).map(([type, media]) => ({ type, schema: media.schema ?? {} })),
        page: Object.keys(success?.content ?? {}).some((type) => type.startsWith('text/html')),
      });
    }
  }
  const dashboardFile = { query: {}, headers: [], bodies: [], page: false };
  routes.push(
    { method: 'GET', template: '/dashboard', params: [], ...dashboardFile },
    { method: 'GET', template: '/dashboard/{file}', params: ['file'], ...dashboardFile },
  );
  return routes;
}

/** Ids and names that exist: this account's, another account's; path parameters and values draw on them. */
export interface KnownValues {
  ids: string[];
  emails: string[];
  names: string[];
}

export type Auth = 'key' | 'sending-key' | 'other-account-key' | 'bad-key' | 'no-key' | 'not-bearer' | 'session' | 'session-without-csrf' | 'bad-cookie';

export interface FuzzRequest {
  route: FuzzRoute;
  method: string;
  /** As it goes on the request line: latin1 characters 0x21-0xFF, each one byte. */
  path: string;
  auth: Auth;
  /** Header values are latin1 too. */
  headers: Record<string, string>;
  body?: Buffer;
}

/** `arbitrary` one time in six, else `usual`. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, usual: T): fc.Arbitrary<T> =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary });

// --- values ---------------------------------------------------------------------------------

const NASTY_STRINGS = [
  '',
  ' ',
  '\0',
  'a\0b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ud83d\ude00',
  '\u202e',
  '\r\nX-Injected: 1',
  '<script>alert(1)</script>',
  '%',
  '%00',
  '%zz',
  "'; DROP TABLE emails; --",
  '{{{var}}}',
  '../../etc/passwd',
  'null',
  'true',
  '-1',
  '1e999',
  '0x10',
  'in 1 min',
  '2026-02-30T25:61:00Z',
  'a@b',
  '@',
  'resend:contact.created',
];

/** Strings of any code point, lone surrogates and NUL included, now and then long (huge ones: `huge` bodies). */
function hostileString(known: KnownValues): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 3, arbitrary: fc.constantFrom(...known.ids, ...known.emails, ...known.names) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'x'.repeat(n)) },
  );
}

const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 2, 2 ** 31, 5e-324),
);

/** Any JSON value, of any type, with hostile strings as keys and values. */
function hostileJson(known: KnownValues): fc.Arbitrary<unknown> {
  const text = hostileString(known);
  const scalar = fc.oneof(text, hostileNumber, fc.boolean(), fc.constant(null));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
  }));
  return value;
}

/**
 * Values of a JSON Schema, with a hostile value (any type) in place of one now and then at
 * every level, and unknown fields added to objects.
 */
function fromSchema(schema: Schema | undefined, known: KnownValues, depth = 0): fc.Arbitrary<unknown> {
  const hostile = hostileJson(known);
  if (!schema || depth > 6) return hostile;
  return fc.oneof({ weight: 5, arbitrary: followSchema(schema, known, depth) }, { weight: 1, arbitrary: hostile });
}

function followSchema(schema: Schema, known: KnownValues, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.oneOf ?? schema.anyOf;
  if (choices) return fc.oneof(...choices.map((s: Schema) => fromSchema(s, known, depth + 1)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type: string) => followSchema({ ...schema, type }, known, depth)));
  switch (schema.type) {
    case 'string':
      return schemaString(schema, known);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 100_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items, known, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object':
      return schemaObject(schema, known, depth);
    default:
      return hostileJson(known);
  }
}

function schemaString(schema: Schema, known: KnownValues): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.oneof(fc.constantFrom(...known.ids), fc.uuid());
    case 'email':
      return fc.oneof(fc.constantFrom(...known.emails), fc.emailAddress());
    case 'date-time':
      return fc.date({ noInvalidDate: true, min: new Date('1970-01-01'), max: new Date('2100-01-01') }).map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl();
  }
  const text = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 20) });
  return fc.oneof(text, fc.constantFrom(...known.ids, ...known.emails, ...known.names));
}

function schemaObject(schema: Schema, known: KnownValues, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const fields = fc.record(Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, fromSchema(s, known, depth + 1)])), {
    requiredKeys: (schema.required ?? []).filter((name: string) => name in properties),
  });
  const extra = schema.additionalProperties
    ? fc.dictionary(
        fc.string({ maxLength: 12 }),
        fromSchema(schema.additionalProperties === true ? undefined : schema.additionalProperties, known, depth + 1),
        {
          maxKeys: 3,
        },
      )
    : fc.constant({});
  const unknown = sometimes(fc.dictionary(hostileString(known), hostileJson(known), { minKeys: 1, maxKeys: 2 }), {});
  return fc.tuple(fields, extra, unknown).map(([f, e, u]) => ({ ...u, ...e, ...f }));
}

// --- encodings ------------------------------------------------------------------------------

/**
 * Percent-encodes every UTF-16 code unit as its UTF-8-like bytes: a lone surrogate becomes
 * %ED%A0%80, which is not UTF-8 (encodeURIComponent would throw on it).
 */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff)
      out += `%ED%${(0x80 | ((code >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`;
    else out += encodeURIComponent(char);
  }
  return out;
}

const bytesEncoded = (bytes: Uint8Array) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
/** Bytes 0x21-0xFF as latin1 characters: what node:http puts on the request line as single bytes. */
const rawBytes = (bytes: Uint8Array) => String.fromCharCode(...[...bytes].map((b) => (b < 0x21 ? b + 0x80 : b)));

/** A path parameter or query value as it goes in the URL. */
function urlText(known: KnownValues, candidates: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: candidates.map(percentEncode) },
    { weight: 2, arbitrary: candidates.map((s) => s.replace(/[^\x21-\x7e]/g, (c) => percentEncode(c)).replace(/[?#/]/g, (c) => percentEncode(c))) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 12 }).map(bytesEncoded) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 12 }).map(rawBytes) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%', '%%', '%zz', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', '%2e%2e', '..', '%2F', 'a'.repeat(1001), 'a'.repeat(5000)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...known.ids).chain((id) => fc.constantFrom(id.toUpperCase(), `${id}%00`, `${id}x`, id.slice(0, -1), `%20${id}`)),
    },
  );
}

function pathParam(known: KnownValues): fc.Arbitrary<string> {
  const candidates = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...known.ids, ...known.emails, ...known.names) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: hostileString(known).map((s) => s.slice(0, 2_000)) },
  );
  return urlText(known, candidates);
}

function queryString(route: FuzzRoute, known: KnownValues): fc.Arbitrary<string> {
  const names = [...Object.keys(route.query), 'limit', 'after', 'before'];
  const value = (name: string) =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: fromSchema(route.query[name], known).map((v) => percentEncode((typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).slice(0, 2_000))),
      },
      {
        weight: 1,
        arbitrary: urlText(
          known,
          hostileString(known).map((s) => s.slice(0, 2_000)),
        ),
      },
    );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names).chain((name) => value(name).map((v) => `${name}=${v}`)) },
    { weight: 1, arbitrary: fc.tuple(urlText(known, fc.string({ unit: 'binary', maxLength: 8 })), value('x')).map(([k, v]) => `${k}=${v}`) },
    { weight: 1, arbitrary: fc.constantFrom('limit', 'limit=', '=x', '&', 'limit[]=1', 'limit[a]=1', '__proto__=1', 'constructor[prototype]=1') },
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

// --- bodies ---------------------------------------------------------------------------------

interface Body {
  contentType?: string;
  bytes?: Buffer;
}

const WRONG_TYPES = [
  'text/plain',
  'application/xml',
  'application/json; charset=latin1',
  'application/jsonx',
  'APPLICATION/JSON',
  'application/json;;;',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'application/x-www-form-urlencoded',
  '*/*',
  'application/octet-stream',
  '',
];

const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null');

/** JSON whose strings hold bytes that are not UTF-8. */
function withInvalidUtf8(text: string, seed: number): Buffer {
  const bad = [
    Buffer.from([0xff]),
    Buffer.from([0xc0, 0xaf]),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from([0xe2, 0x82]),
    Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  ];
  const at = text.indexOf('"') + 1;
  if (at === 0) return Buffer.concat([Buffer.from(`"`), bad[seed % bad.length]!, Buffer.from(`"`)]);
  return Buffer.concat([Buffer.from(text.slice(0, at)), bad[seed % bad.length]!, Buffer.from(text.slice(at))]);
}

const deep = fc
  .tuple(fc.integer({ min: 500, max: 100_000 }), fc.boolean())
  .map(([depth, arrays]) => Buffer.from(arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
const wide = fc
  .tuple(fc.integer({ min: 1_000, max: 100_000 }), fc.boolean())
  .map(([n, arrays]) => Buffer.from(arrays ? `[${'0,'.repeat(n)}0]` : `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`));

/** One field of megabytes: past the body limit now and then. */
const huge = (fieldNames: string[]) =>
  fc
    .tuple(fc.constantFrom('x', ...fieldNames), fc.integer({ min: 100_000, max: 70_000_000 }))
    .map(([name, size]) => Buffer.concat([Buffer.from(`{"${name}":"`), Buffer.alloc(size, 'x'), Buffer.from('"}')]));

function multipart(fields: [string, string][], broken: boolean): Body {
  const boundary = 'fuzzBoundary7MA4YWxkTrZu0gW';
  const parts = fields.map(([name, value], i) =>
    i === 0
      ? `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="x.csv"\r\nContent-Type: text/csv\r\n\r\n${value}\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const text = parts.join('') + (broken ? `--${boundary}` : `--${boundary}--\r\n`);
  return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.from(text, 'utf8') };
}

function bodyFor(route: FuzzRoute, known: KnownValues): fc.Arbitrary<Body> {
  const declared = route.bodies[0];
  const value = fromSchema(declared?.schema, known);
  const fieldNames = Object.keys(declared?.schema.properties ?? {});
  const formFields = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom('file', ...fieldNames), fc.string({ maxLength: 8 })),
      fromSchema(undefined, known).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    ),
    { minLength: 1, maxLength: 4 },
  );
  const withType = (bytes: fc.Arbitrary<Buffer>) =>
    fc.tuple(bytes, sometimes(fc.constantFrom(...WRONG_TYPES), 'application/json')).map(([b, contentType]) => ({ contentType, bytes: b }));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom<Body>({}, { contentType: 'application/json' }, { contentType: 'application/json', bytes: Buffer.from('') }) },
    { weight: 12, arbitrary: withType(value.map(json)) },
    { weight: 2, arbitrary: withType(fc.tuple(value, fc.nat()).map(([v, seed]) => withInvalidUtf8(JSON.stringify(v) ?? 'null', seed))) },
    { weight: 1, arbitrary: withType(fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b))) },
    { weight: 1, arbitrary: withType(fc.oneof(deep, wide, huge(fieldNames))) },
    { weight: 1, arbitrary: withType(value.map((v) => Buffer.from((JSON.stringify(v) ?? 'null').slice(0, -1)))) },
    {
      weight: 2,
      arbitrary: formFields.map((fields) => ({
        contentType: 'application/x-www-form-urlencoded',
        bytes: Buffer.from(fields.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')),
      })),
    },
    { weight: 2, arbitrary: fc.tuple(formFields, fc.boolean()).map(([fields, broken]) => multipart(fields, broken)) },
  );
}

// --- requests -------------------------------------------------------------------------------

const AUTHS: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Auth>('key') },
  { weight: 4, arbitrary: fc.constant<Auth>('session') },
  { weight: 1, arbitrary: fc.constantFrom<Auth>('sending-key', 'other-account-key', 'bad-key', 'no-key', 'not-bearer', 'session-without-csrf', 'bad-cookie') },
);

const latin1Header = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x7e : c)), maxLength: 300 });

const HEADERS: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'idempotency-key': fc.oneof(fc.uuid(), latin1Header),
    'x-batch-validation': fc.oneof(fc.constantFrom('strict', 'permissive'), latin1Header),
    accept: fc.constantFrom('text/html', 'application/json', '*/*', 'image/*'),
    'accept-encoding': fc.constantFrom('gzip', 'br, gzip;q=0', 'identity'),
    origin: fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1', '\xff'),
    'x-forwarded-for': fc.constantFrom('203.0.113.9', 'not an address', '::1, 10.0.0.1'),
    'x-unknown': latin1Header,
  },
  { requiredKeys: [] },
);

/** One request: a route (or its path with another method), hostile parts throughout. */
export function requestArbitrary(routes: FuzzRoute[], known: KnownValues): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...routes).chain((route) =>
    fc
      .record({
        method: sometimes(fc.constantFrom(...METHODS, 'HEAD', 'OPTIONS'), route.method),
        params: fc.array(pathParam(known), { minLength: route.params.length, maxLength: route.params.length }),
        query: queryString(route, known),
        auth: AUTHS,
        headers: HEADERS,
        body: bodyFor(route, known),
      })
      .map(({ method, params, query, auth, headers, body }) => {
        let i = 0;
        const path = route.template.replace(/\{[^}]+\}/g, () => params[i++]!) + query;
        const all: Record<string, string> = { ...headers };
        if (body.contentType !== undefined) all['content-type'] = body.contentType;
        return { route, method, path, auth, headers: all, body: method === 'HEAD' ? undefined : body.bytes };
      }),
  );
}
