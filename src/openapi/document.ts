// The OpenAPI 3.1 description of the routes a node mounts, built from the docs each concept
// writes beside its handlers (api/route.ts `RouteDoc`): paths from the urls (`:id` → `{id}`),
// API-key security unless a route is public, the Idempotency-Key header of idempotent routes,
// the body's media type from the route's bodyShape, and one error schema for every failure
// (http/error-replies.ts sends it; api/errors.ts catalogues the names). Routes that are not
// part of Resend's API say so with `x-postline-addition: true`, from their docs.
import type { ResponseDoc, Route } from '../api/route.js';
import { integer, type JsonSchema, object, string } from '../api/schema.js';

type Json = Record<string, unknown>;

const ERROR_RESPONSE = { $ref: '#/components/responses/Error' };

const ERROR_SCHEMA = object({
  statusCode: integer({ description: 'The HTTP status.' }),
  message: string(),
  name: string({ description: 'The error name, as Resend names it (validation_error, not_found, …).' }),
});

interface DocumentInfo {
  /** Postline's version. */
  version: string;
}

export function openApiDocument(routes: readonly Route[], info: DocumentInfo): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Postline',
      version: info.version,
      description: "Postline's HTTP API: Resend's API (the official SDKs work against it) and Postline's own additions, marked `x-postline-addition`.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (`re_…`): full_access, or sending_access for the sending routes.' },
      },
      schemas: { Error: ERROR_SCHEMA },
      responses: { Error: { description: 'An error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
    },
  };
}

function operation(route: Route): Json {
  const doc = route.doc;
  const pathParams = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  for (const name of Object.keys(doc?.params ?? {})) {
    if (!pathParams.includes(name)) throw new Error(`${route.method} ${route.url}: its doc describes a path parameter \`${name}\` the url lacks`);
  }
  const parameters = [
    ...pathParams.map((name) => parameter(name, 'path', doc?.params?.[name] ?? string(), true)),
    ...Object.entries(doc?.query ?? {}).map(([name, schema]) => parameter(name, 'query', schema, doc?.requiredQuery?.includes(name) ?? false)),
    ...(route.idempotent
      ? [
          parameter(
            'Idempotency-Key',
            'header',
            string({ minLength: 1, maxLength: 256, description: 'Makes a retried request safe: the same key answers the same response.' }),
            false,
          ),
        ]
      : []),
    ...Object.entries(doc?.headers ?? {}).map(([name, schema]) => parameter(name, 'header', schema, false)),
  ];
  const keyed = route.access !== 'public';
  return {
    ...(doc ? { summary: doc.summary } : {}),
    ...(doc?.description ? { description: doc.description } : {}),
    tags: doc?.tags ?? [route.url.split('/')[1]],
    // The API key's permission the route takes: sending_access keys only reach 'sending' routes.
    'x-postline-access': route.access ?? 'full',
    ...(doc?.addition ? { 'x-postline-addition': true } : {}),
    ...(keyed ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(doc?.body ? { requestBody: requestBody(route, doc.body) } : {}),
    responses: {
      ...(doc ? { [String(doc.response.status)]: response(doc.response) } : {}),
      ...(keyed ? { '401': ERROR_RESPONSE, '403': ERROR_RESPONSE } : {}),
      '429': ERROR_RESPONSE,
      default: ERROR_RESPONSE,
    },
  };
}

function parameter(name: string, where: 'path' | 'query' | 'header', schema: JsonSchema, required: boolean): Json {
  const { description, ...rest } = schema;
  return { name, in: where, required, ...(description ? { description } : {}), schema: rest };
}

function requestBody(route: Route, schema: JsonSchema): Json {
  const media =
    route.bodyShape === 'multipart'
      ? ['multipart/form-data']
      : route.bodyShape === 'form'
        ? ['application/x-www-form-urlencoded', 'multipart/form-data']
        : ['application/json'];
  // A route without a required field also takes no body at all (routes.ts reads it as `{}`).
  const required = ['array', 'json', 'multipart'].includes(route.bodyShape ?? '') || (schema.required?.length ?? 0) > 0;
  return { required, content: Object.fromEntries(media.map((type) => [type, { schema }])) };
}

function response(doc: ResponseDoc): Json {
  const type = doc.contentType ?? 'application/json';
  const body = doc.schema || doc.contentType ? { content: { [type]: doc.schema ? { schema: doc.schema } : {} } } : {};
  const headers = Object.entries(doc.headers ?? {}).map(([name, schema]) => [name, { schema }]);
  return { description: doc.description ?? 'OK', ...(headers.length ? { headers: Object.fromEntries(headers) } : {}), ...body };
}
