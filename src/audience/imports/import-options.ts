// The form fields of POST /contacts/imports beside the file (openapi CreateContactImportOptions):
// `column_map`, `on_conflict`, `segments`, `topics`, each a JSON string (on_conflict plain).
// Each field is read as it arrives (a malformed one stops the upload at once); what needs the
// database (segments and topics of this account, defined contact properties) is checked
// before the import is queued.
import { validation } from '../../api/errors.js';
import { input, oneOfValues, string } from '../../api/schema.js';
import type { Queryable } from '../../db/database.js';
import { assertOwned, type TopicChoice } from '../contact-store.js';
import { propertyDefinitions, type PropertyType } from '../property-values.js';

export type OnConflict = 'upsert' | 'skip';
export const MAPPED_FIELDS = ['email', 'first_name', 'last_name', 'unsubscribed'] as const;
export type ContactColumn = (typeof MAPPED_FIELDS)[number];

export interface ColumnMap {
  /** CSV column name per contact field; absent: the column named like the field. */
  fields: Partial<Record<ContactColumn, string>>;
  /** Contact property key → its CSV column and type (absent: the property's own, set by checkImportOptions). */
  properties: Record<string, { column: string; type?: PropertyType }>;
}

export interface ImportOptions {
  columnMap: ColumnMap;
  onConflict: OnConflict;
  segmentIds: string[];
  topics: TopicChoice[];
}

export type ImportField = 'column_map' | 'on_conflict' | 'segments' | 'topics';
export const IMPORT_FIELDS: readonly string[] = ['file', 'column_map', 'on_conflict', 'segments', 'topics'];

/** The multipart form of POST /contacts/imports, for its doc: the file and the fields readOptionField reads. */
export const IMPORT_FORM_SCHEMA = input(
  {
    file: string({ contentMediaType: 'text/csv', description: 'The CSV, a header row first; at most 50 MB.' }),
    column_map: string({
      contentMediaType: 'application/json',
      description:
        'JSON: `{"email"?, "first_name"?, "last_name"?, "unsubscribed"?: column name, "properties"?: {KEY: {"column", "type"?}}}`; default: columns named like the fields.',
    }),
    on_conflict: oneOfValues(['upsert', 'skip'], { default: 'skip', description: 'What happens to contacts that exist already.' }),
    segments: string({ contentMediaType: 'application/json', description: 'JSON: segment ids, or `[{"id"}]`, to add every contact to.' }),
    topics: string({ contentMediaType: 'application/json', description: 'JSON: `[{"id", "subscription": "opt_in" | "opt_out"}]`.' }),
  },
  ['file'],
);

/** Options with nothing given: columns by their names, existing contacts skipped. */
export function defaultOptions(): ImportOptions {
  return { columnMap: { fields: {}, properties: {} }, onConflict: 'skip', segmentIds: [], topics: [] };
}

/** Reads one form field into `options`; ApiError 422 naming it when malformed. */
export function readOptionField(options: ImportOptions, name: ImportField, value: string): void {
  switch (name) {
    case 'on_conflict':
      if (value !== 'upsert' && value !== 'skip') throw validation('The `on_conflict` field must be one of "upsert" | "skip".');
      options.onConflict = value;
      return;
    case 'column_map':
      options.columnMap = parseColumnMap(json(value, 'column_map'));
      return;
    case 'segments':
      options.segmentIds = parseSegments(json(value, 'segments'));
      return;
    case 'topics':
      options.topics = parseTopics(json(value, 'topics'));
      return;
  }
}

function json(value: string, field: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw validation(`The \`${field}\` field must be a JSON string.`);
  }
}

/** A column name: a non-empty string. */
function columnName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw validation(`The \`${field}\` field must be a column name.`);
  return value;
}

function parseColumnMap(value: unknown): ColumnMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validation('The `column_map` field must be a JSON object.');
  const map: ColumnMap = { fields: {}, properties: {} };
  for (const [key, column] of Object.entries(value)) {
    // The SDK sends every key, undefined ones dropped; an explicit null means "not mapped".
    if (column === null || column === undefined) continue;
    if ((MAPPED_FIELDS as readonly string[]).includes(key)) {
      map.fields[key as ContactColumn] = columnName(column, `column_map.${key}`);
    } else if (key === 'properties') {
      map.properties = parsePropertyMappings(column);
    } else {
      throw validation(`Unknown field \`column_map.${key}\`.`);
    }
  }
  return map;
}

function parsePropertyMappings(value: unknown): ColumnMap['properties'] {
  if (typeof value !== 'object' || Array.isArray(value)) throw validation('The `column_map.properties` field must be an object.');
  const mappings: ColumnMap['properties'] = {};
  for (const [key, mapping] of Object.entries(value as object)) {
    const where = `column_map.properties.${key}`;
    if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) {
      throw validation(`The \`${where}\` field must be an object like {"column": "Plan", "type": "string"}.`);
    }
    const { column, type, ...rest } = mapping as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) throw validation(`Unknown field \`${where}.${unknown}\`.`);
    if (type !== undefined && type !== 'string' && type !== 'number' && type !== 'boolean') {
      throw validation(`The \`${where}.type\` field must be one of "string" | "number" | "boolean".`);
    }
    // `boolean` is in the SDK's type; contact properties here are strings or numbers.
    if (type === 'boolean') throw validation(`The \`${where}.type\` field cannot be "boolean": contact properties are strings or numbers.`);
    mappings[key] = { column: columnName(column, `${where}.column`), type: type as PropertyType | undefined };
  }
  return mappings;
}

/** `[{id}]` as the SDK sends it, or `[id]` (accepted as for POST /contacts). */
function parseSegments(value: unknown): string[] {
  if (!Array.isArray(value)) throw validation('The `segments` field must be a JSON array.');
  const ids = value.map((item, i) => {
    const id = typeof item === 'string' ? item : typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') throw validation(`The \`segments[${i}]\` field must be a segment id or {"id": …}.`);
    return id.toLowerCase();
  });
  return [...new Set(ids)];
}

function parseTopics(value: unknown): TopicChoice[] {
  if (!Array.isArray(value)) throw validation('The `topics` field must be a JSON array.');
  // The last choice for a topic wins when the list names it twice.
  const byTopic = new Map<string, TopicChoice['subscription']>();
  value.forEach((item, i) => {
    const { id, subscription } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof id !== 'string') throw validation(`The \`topics[${i}].id\` field must be a topic id.`);
    if (subscription !== 'opt_in' && subscription !== 'opt_out') {
      throw validation(`The \`topics[${i}].subscription\` field must be one of "opt_in" | "opt_out".`);
    }
    byTopic.set(id.toLowerCase(), subscription);
  });
  return [...byTopic].map(([topicId, subscription]) => ({ topicId, subscription }));
}

/**
 * What needs the database: the segments and topics are this account's (404 otherwise, as on
 * POST /contacts), every mapped property is defined, with the type the mapping says.
 */
export async function checkImportOptions(q: Queryable, accountId: string, options: ImportOptions): Promise<void> {
  await assertOwned(q, accountId, 'segments', options.segmentIds, 'Segment');
  await assertOwned(
    q,
    accountId,
    'topics',
    options.topics.map((t) => t.topicId),
    'Topic',
  );
  const keys = Object.keys(options.columnMap.properties);
  if (keys.length === 0) return;
  const defined = await propertyDefinitions(q, accountId, keys);
  for (const key of keys) {
    const definition = defined.get(key);
    if (!definition) throw validation(`The property \`${key}\` does not exist. Create it with POST /contact-properties first.`);
    const mapping = options.columnMap.properties[key]!;
    if (mapping.type !== undefined && mapping.type !== definition.type) {
      throw validation(`The \`column_map.properties.${key}.type\` field must be "${definition.type}", the type of the property.`);
    }
    mapping.type = definition.type;
  }
}
