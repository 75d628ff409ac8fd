// What every signed download route shares (sent attachments, received messages and their
// attachments, a shared email's page): the signature is the credential, so a wrong one reads as not found and an
// expired one is refused with 403; and the bytes are always a download, never rendered, since
// they are not trusted content of this origin. The id is the route's `:id`, a UUID its schema
// checked (a malformed one is refused before the handler, as a malformed `expires` is).
import { notFound, validation } from '../api/errors.js';
import type { UrlSigner } from './url-signing.js';

/**
 * Checks `?expires=…&signature=…` of a download of `id`, signed over `scope` (none, or a kind
 * that keeps one route's URL from opening another's), then the id and the expiry (`expired`: the
 * words for a URL past it).
 */
export function checkDownloadUrl(
  signer: UrlSigner,
  options: { id: string | undefined; query: Record<string, string | undefined>; scope?: string; what: string; expired?: string },
): void {
  const { expires, signature } = options.query;
  const valid = options.id !== undefined && /^\d{1,12}$/.test(expires ?? '') && typeof signature === 'string';
  const signed = [...(options.scope ? [options.scope] : []), options.id!, expires!];
  if (!valid || !signer.verify(signature!, ...signed)) throw notFound(options.what);
  if (Number(expires) * 1000 < Date.now()) throw validation(options.expired ?? 'This download URL has expired; get a new one from the API.', 403);
}

/** The answer's headers: the file's type, its name (RFC 6266: an ASCII fallback and the exact name, RFC 5987), and no rendering. */
export function downloadHeaders(contentType: string, filename: string | null): Record<string, string> {
  return {
    'content-type': contentType,
    'content-disposition': filename
      ? `attachment; filename="${filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`
      : 'attachment',
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
  };
}
