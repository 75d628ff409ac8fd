// Requests are checked by their documented schemas (request-schema.ts) before a handler runs;
// what a handler then reads of a JSON body has this type.

/** A JSON object from a request, as the schema check passed it. */
export type Body = Record<string, unknown>;
