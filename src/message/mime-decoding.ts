// Decoding what MIME encodes, for messages Postline did not compose itself (SMTP submission):
// header parameters (RFC 2231 continuations, encoded words) and part bodies (base64,
// quoted-printable). libmime and libqp are nodemailer's own decoders (CommonJS, untyped).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const libmime = require('libmime') as {
  parseHeaderValue(value: string): { value: string; params: Record<string, string> };
};
const libqp = require('libqp') as { decode(text: string): Buffer };

/** `type/subtype; a=b` → value and parameters, names lower-cased, values decoded. */
export function parseStructuredHeader(value: string): { value: string; params: Record<string, string> } {
  return libmime.parseHeaderValue(value);
}

/** A part's body as stored on the wire → its bytes. */
export function decodeTransfer(body: Buffer, transferEncoding: string): Buffer {
  switch (transferEncoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.toString('latin1'), 'base64');
    case 'quoted-printable':
      return libqp.decode(body.toString('latin1'));
    default:
      return body;
  }
}
