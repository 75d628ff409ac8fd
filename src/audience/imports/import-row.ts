// From CSV cells to a contact: which column holds which field (resolved once against the
// header), then each row read on its own, so a bad row is reported and the rest go on.
// An empty cell means "no value": a new contact gets none, an upserted one keeps its own.
import { ApiError } from '../../api/errors.js';
import { parseContactEmail, parseName } from '../contact-fields.js';
import type { PropertyType } from '../property-values.js';
import { ImportFailure } from './csv-records.js';
import type { ColumnMap, ContactColumn } from './import-options.js';

export interface ImportRow {
  line: number;
  email: string;
  firstName?: string;
  lastName?: string;
  unsubscribed?: boolean;
  properties: Record<string, string | number>;
}

export interface RowError {
  line: number | null;
  message: string;
}

export interface Columns {
  email: number;
  firstName?: number;
  lastName?: number;
  unsubscribed?: number;
  properties: { key: string; index: number; type: PropertyType }[];
}

/** Header names compared loosely when not found exactly: "First Name" finds first_name. */
const loose = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const DEFAULT_NAMES: Record<ContactColumn, string[]> = {
  email: ['email', 'emailaddress'],
  first_name: ['firstname'],
  last_name: ['lastname'],
  unsubscribed: ['unsubscribed'],
};

/** Where each mapped field is in `header` (line 1); ImportFailure when a column is missing. */
export function resolveColumns(header: string[], map: ColumnMap, line: number): Columns {
  const missing = (message: string) => new ImportFailure(line, message);
  const find = (name: string) => {
    const exact = header.findIndex((h) => h.trim() === name.trim());
    return exact !== -1 ? exact : header.findIndex((h) => loose(h) === loose(name));
  };
  const column = (field: ContactColumn): number | undefined => {
    const named = map.fields[field];
    if (named === undefined) {
      const index = header.findIndex((h) => DEFAULT_NAMES[field].includes(loose(h)));
      return index === -1 ? undefined : index;
    }
    const index = find(named);
    if (index === -1) throw missing(`The file has no column "${named}" (column_map.${field}).`);
    return index;
  };
  const email = column('email');
  if (email === undefined) throw missing('The file has no email column: name it with column_map.email.');
  const properties = Object.entries(map.properties).map(([key, mapping]) => {
    const index = find(mapping.column);
    if (index === -1) throw missing(`The file has no column "${mapping.column}" (column_map.properties.${key}).`);
    return { key, index, type: mapping.type ?? ('string' as const) };
  });
  return { email, firstName: column('first_name'), lastName: column('last_name'), unsubscribed: column('unsubscribed'), properties };
}

/** The contact a row describes, or why it cannot be imported. */
export function readRow(cells: string[], columns: Columns, line: number): ImportRow | RowError {
  try {
    const email = cell(cells, columns.email);
    if (email === undefined) return { line, message: 'The email is empty.' };
    const row: ImportRow = { line, email: readEmail(email), properties: {} };
    const firstName = cell(cells, columns.firstName);
    if (firstName !== undefined) row.firstName = parseName(firstName, 'first_name')!;
    const lastName = cell(cells, columns.lastName);
    if (lastName !== undefined) row.lastName = parseName(lastName, 'last_name')!;
    const unsubscribed = cell(cells, columns.unsubscribed);
    if (unsubscribed !== undefined) row.unsubscribed = readBoolean(unsubscribed);
    for (const property of columns.properties) {
      const value = cell(cells, property.index);
      if (value !== undefined) row.properties[property.key] = readProperty(value, property.key, property.type);
    }
    return row;
  } catch (err) {
    if (err instanceof ApiError) return { line, message: err.message };
    throw err;
  }
}

/** A cell's text, trimmed; undefined when absent or empty. */
function cell(cells: string[], index: number | undefined): string | undefined {
  if (index === undefined) return undefined;
  const value = cells[index]?.trim();
  return value ? value : undefined;
}

function readEmail(value: string): string {
  try {
    return parseContactEmail(value);
  } catch {
    throw rowError(`${quoted(value)} is not a valid email address.`);
  }
}

const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

function readBoolean(value: string): boolean {
  const lower = value.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw rowError(`The unsubscribed value ${quoted(value)} is not true or false.`);
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function readProperty(value: string, key: string, type: PropertyType): string | number {
  // PostgreSQL text cannot hold NUL: one would fail the whole batch, not just its row.
  if (value.includes('\0')) throw rowError(`The property \`${key}\` contains a NUL character.`);
  if (type === 'string') return value;
  const number = Number(value);
  if (!NUMBER.test(value) || !Number.isFinite(number)) throw rowError(`The property \`${key}\` must be a number, got ${quoted(value)}.`);
  return number;
}

const rowError = (message: string) => new ApiError('validation_error', message);
const quoted = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

export const isRowError = (row: ImportRow | RowError): row is RowError => 'message' in row;
