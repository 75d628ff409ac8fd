// Addresses and ids in /suppressions requests: the schemas that check the bodies (request-schema.ts)
// and what the handlers still judge, an address. An address is a bare address (no display
// name); it is stored and matched lower-cased.
import { validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { array, type JsonSchema, string } from '../api/schema.js';
import { parseMailbox } from '../addresses/mailbox.js';

const MAX_BATCH = 100;

/** A string that parseAddress then judges. */
export const ADDRESS_SCHEMA = string({ format: 'email', description: 'A bare address, without a display name.' });
/** A batch: 1 to MAX_BATCH items. */
export const batchSchema = (item: JsonSchema) => array(item, { minItems: 1, maxItems: MAX_BATCH });
/** The path's `:suppression`, as keyCondition reads it. */
export const KEY_SCHEMA = string({ description: 'The suppression id, or the address.' });

/** A bare address, lower-cased; `field` names it in the refusal. */
export function parseAddress(value: string, field: string): string {
  const mailbox = parseMailbox(value, field);
  if (mailbox.name || value.includes('<')) throw validation(`The \`${field}\` field must be a bare email address, such as \`email@example.com\`.`);
  return mailbox.address.toLowerCase();
}

/** The path's `:suppression`: an id, or an address (the SDK url-encodes it; the router decodes). */
export function keyCondition(key: string): { column: 'id' | 'email'; value: string } | undefined {
  if (isUuid(key as unknown)) return { column: 'id', value: key.toLowerCase() };
  const address = key.trim().toLowerCase();
  return address.includes('@') && !/[\s<>]/.test(address) ? { column: 'email', value: address } : undefined;
}
