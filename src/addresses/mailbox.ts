// Email addresses as the API accepts them: `addr` or `Name <addr>`, one mailbox per string.
// nodemailer's addressparser reads the display name (quotes, escapes); it is lenient by design
// ("Acme a@b.com" and "a@b" parse), so the shape is checked first and the address itself
// against RFC 5321's dot-atom form. Only ASCII addresses are accepted for now: SMTPUTF8 and
// IDN domains need the delivery side to support them first.
import addressparser from 'nodemailer/lib/addressparser';
import { validation } from '../api/errors.js';

export interface Mailbox {
  /** Display name, unquoted; '' when none. Encoded by the composer, never written raw. */
  name: string;
  /** The bare address, domain lower-cased. */
  address: string;
  /** Lower-case domain of the address. */
  domain: string;
}

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const ADDRESS = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${LABEL}(?:\\.${LABEL})+$`);
/** `Name <addr>`: the name is a quoted string or has no angle brackets or quotes of its own. */
const NAMED = /^(?:("(?:[^"\\]|\\.)*")|([^<>"]*?))\s*<([^<>\s]+)>$/;

function invalidAddress(field: string) {
  return validation(`Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`);
}

function checkAddress(address: string): boolean {
  if (address.length > 254 || !ADDRESS.test(address)) return false;
  return address.indexOf('@') <= 64;
}

/** Parses one `addr` or `Name <addr>` string; throws 422 validation_error naming `field`. */
export function parseMailbox(value: string, field: string): Mailbox {
  if (/[\r\n\0]/.test(value)) throw validation(`The \`${field}\` field must not contain line breaks.`);
  const text = value.trim();
  let address: string;
  let name = '';
  const named = NAMED.exec(text);
  if (named) {
    address = named[3]!;
    if (named[1] !== undefined || named[2]) {
      const parsed = addressparser(text);
      const first = parsed[0];
      if (parsed.length !== 1 || !first || first.group || first.address !== address) throw invalidAddress(field);
      name = first.name;
    }
  } else {
    address = text;
  }
  if (!checkAddress(address)) throw invalidAddress(field);
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1).toLowerCase();
  return { name, address: `${address.slice(0, at)}@${domain}`, domain };
}
