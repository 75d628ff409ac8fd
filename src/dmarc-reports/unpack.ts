// Unpacking a report attachment: gzip (RFC 1952) or zip, each inflated under a bound on its
// output so that a bomb (a few kilobytes inflating to gigabytes) is refused before it is inflated,
// and the text inside decoded (UTF-8 by default, a BOM or the XML declaration's encoding
// otherwise). Reporters' archives are often odd, so what can be read is read:
//   gzip  members are read one by one with zlib's raw inflate (not gunzip, which gives up on all
//         of it at the first oddity): several members are joined (RFC 1952 §2.2), bytes after
//         the last one (Mimecast adds CR LF) are ignored, a member cut short gives what it held;
//         the whole output is bounded by zlib's maxOutputLength, which stops inflating past it.
//   zip   every entry named .xml or .json (any entry when none is); entries whose declared size
//         (central directory) is past the bound are refused unread, and since a declared size can
//         lie, entries are inflated by fflate's streaming Unzip fed a small slice at a time, the
//         output counted as it comes and inflation stopped once past the bound.
import zlib from 'node:zlib';
import { Unzip, UnzipInflate, unzipSync } from 'fflate';

/** The bound on what one attachment may inflate to, unless the caller gives another. */
export const DEFAULT_MAX_INFLATED_BYTES = 50 * 1024 * 1024;

interface UnpackedFile {
  /** The zip entry's name; null for gzip or a plain part. */
  name: string | null;
  bytes: Uint8Array;
}

type Unpacked = { files: UnpackedFile[]; problems: string[] } | { refused: string };

type Packing = 'gzip' | 'zip' | 'plain';

export function packingOf(bytes: Uint8Array): Packing {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip';
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6)) return 'zip';
  return 'plain';
}

export function unpack(bytes: Uint8Array, maxBytes: number): Unpacked {
  const packing = packingOf(bytes);
  if (packing === 'gzip') return gunzipBounded(bytes, maxBytes);
  if (packing === 'zip') return unzipBounded(bytes, maxBytes);
  if (bytes.length > maxBytes) return { refused: `the part is ${bytes.length} bytes, past the bound of ${maxBytes}` };
  return { files: [{ name: null, bytes }], problems: [] };
}

const tooLarge = (max: number) => ({ refused: `it inflates past the bound of ${max} bytes (a compression bomb?): not inflated further` });

/** Where a gzip member's deflate data starts (after its header, RFC 1952 §2.3), or null when the header is cut short. */
function gzipHeaderEnd(b: Uint8Array, start: number): number | null {
  const flags = b[start + 3]!;
  let p = start + 10;
  if (flags & 4) p += 2 + (b[p]! | (b[p + 1]! << 8)); // FEXTRA
  for (const bit of [8, 16]) {
    // FNAME, FCOMMENT: zero-terminated
    if (!(flags & bit)) continue;
    while (p < b.length && b[p] !== 0) p++;
    p++;
  }
  if (flags & 2) p += 2; // FHCRC
  return p <= b.length ? p : null;
}

function gunzipBounded(bytes: Uint8Array, max: number): Unpacked {
  const parts: Buffer[] = [];
  const problems: string[] = [];
  let total = 0;
  let pos = 0;
  for (let member = 0; pos < bytes.length; member++) {
    if (bytes[pos] !== 0x1f || bytes[pos + 1] !== 0x8b) {
      const rest = bytes.subarray(pos);
      // Zeros or line ends after the last member are padding seen in the wild, not worth a word.
      if (rest.some((c) => c !== 0 && c !== 0x0d && c !== 0x0a)) problems.push(`${rest.length} bytes after the gzip data ignored`);
      break;
    }
    const start = bytes[pos + 2] === 8 ? gzipHeaderEnd(bytes, pos) : null;
    if (start === null) {
      problems.push(`gzip member ${member + 1}: ${bytes[pos + 2] === 8 ? 'header cut short' : 'not deflate-compressed'}`);
      break;
    }
    let out: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      const options = { info: true, finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, max - total) };
      out = zlib.inflateRawSync(bytes.subarray(start), options) as unknown as typeof out;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge(max);
      problems.push(`gzip member ${member + 1}: ${(err as Error).message}`);
      break;
    }
    parts.push(out.buffer);
    total += out.buffer.length;
    if (total > max) return tooLarge(max);
    const end = start + out.engine.bytesWritten;
    if (end + 8 > bytes.length) {
      problems.push(`gzip member ${member + 1}: cut short (its end is missing)`);
      break;
    }
    pos = end + 8; // CRC32 and ISIZE
  }
  if (parts.length === 0) return { refused: `not readable as gzip: ${problems.join('; ') || 'no data'}` };
  return { files: [{ name: null, bytes: Buffer.concat(parts) }], problems };
}

/** How much of the zip is handed to the streaming inflater at a time: deflate's ratio is at most ~1032:1, so this bounds one step's output to ~16 MB. */
const ZIP_SLICE_BYTES = 16 * 1024;

const reportEntry = (name: string) => /\.(xml|json)$/i.test(name);
const fileEntry = (name: string) => !name.endsWith('/') && !/(^|\/)__MACOSX\/|(^|\/)\._/.test(name);

function unzipBounded(bytes: Uint8Array, max: number): Unpacked {
  const problems: string[] = [];
  // The central directory's listing, without inflating: declared sizes refuse an honest bomb at once.
  const declared = new Map<string, number>();
  try {
    unzipSync(bytes, {
      filter: (f) => {
        declared.set(f.name, f.originalSize);
        return false;
      },
    });
  } catch (err) {
    problems.push(`zip directory not readable (${(err as Error).message}): entries read in order`);
  }
  const names = [...declared.keys()].filter(fileEntry);
  const wantAll = declared.size > 0 && !names.some(reportEntry);
  const wanted = (name: string) => fileEntry(name) && (wantAll || reportEntry(name) || (declared.size === 0 && !/\.\w+$/.test(name)));
  const declaredTotal = names.filter(wanted).reduce((sum, n) => sum + declared.get(n)!, 0);
  if (declaredTotal > max) return { refused: `its entries declare ${declaredTotal} bytes, past the bound of ${max} (a compression bomb?): not inflated` };

  const files: UnpackedFile[] = [];
  let total = 0;
  let refused = false;
  const unzip = new Unzip((file) => {
    if (refused || !wanted(file.name)) return;
    const chunks: Uint8Array[] = [];
    file.ondata = (err, chunk, final) => {
      if (refused) return;
      if (err) return void problems.push(`zip entry ${file.name}: ${err.message}`);
      total += chunk.length;
      if (total > max) {
        refused = true;
        return file.terminate();
      }
      chunks.push(chunk);
      if (final) files.push({ name: file.name, bytes: Buffer.concat(chunks) });
    };
    try {
      file.start();
    } catch (err) {
      problems.push(`zip entry ${file.name}: ${(err as Error).message}`);
    }
  });
  unzip.register(UnzipInflate);
  try {
    for (let i = 0; i < bytes.length && !refused; i += ZIP_SLICE_BYTES) unzip.push(bytes.subarray(i, i + ZIP_SLICE_BYTES), i + ZIP_SLICE_BYTES >= bytes.length);
  } catch (err) {
    problems.push(`zip data: ${(err as Error).message}`);
  }
  if (refused) return tooLarge(max);
  if (files.length === 0) return { refused: `no report found in the zip${problems.length ? `: ${problems.join('; ')}` : ''}` };
  return { files, problems };
}

/** Text of a report file: BOM, then the XML declaration's encoding, then UTF-8; bad bytes become U+FFFD, said in problems. */
export function decodeText(bytes: Uint8Array, problems: string[]): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return utf8(bytes.subarray(3), problems);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(Buffer.from(bytes.subarray(0, 200)).toString('latin1'))?.[1];
  if (declared && !/^(utf-?8|us-ascii|ascii)$/i.test(declared)) {
    try {
      return new TextDecoder(declared).decode(bytes);
    } catch {
      problems.push(`unknown encoding "${declared}": read as UTF-8`);
    }
  }
  return utf8(bytes, problems);
}

function utf8(bytes: Uint8Array, problems: string[]): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    problems.push('not valid UTF-8: the bad bytes were replaced with U+FFFD');
    return new TextDecoder('utf-8').decode(bytes);
  }
}
