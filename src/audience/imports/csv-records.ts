// The stored file, as CSV records, streamed: csv-parse reads the bytes a slice at a time and
// hands back each record with the line it starts on, so memory holds one slice's records,
// never the file. The same bytes always give the same records in the same order (a resumed
// import counts off the rows it already did).
//
// Lenient where spreadsheets are sloppy (a quote inside an unquoted field, text after a
// closing quote, rows with more or fewer columns than the header); strict where the file can
// no longer be read reliably: a record longer than MAX_RECORD_CHARS (almost always a quote
// that is never closed, swallowing the lines after it) stops the import. A quote still open
// at the very end only loses the last record, which is reported as one failed row.
import { parse, type CsvError } from 'csv-parse';

type CsvRecord = { line: number; cells: string[] } | { line: number; error: string };

/** Why a whole import fails (the file cannot be read as CSV any further, a mapped column is missing). */
export class ImportFailure extends Error {
  constructor(
    readonly line: number | null,
    message: string,
  ) {
    super(message);
  }
}

const SLICE_BYTES = 64 * 1024;
const MAX_RECORD_CHARS = 64 * 1024;

/** The records of the CSV in `chunks`, header included, a slice's worth per yield. */
export async function* csvRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<CsvRecord[]> {
  let records: CsvRecord[] = [];
  const parser = parse({
    bom: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    // Spreadsheets export trailing rows of empty cells (",,,"): not rows of data.
    skip_records_with_empty_values: true,
    max_record_size: MAX_RECORD_CHARS,
    // Records are taken here, in order, rather than read from the stream: nothing is pushed
    // downstream, so the parser never waits on a reader.
    on_record: (cells: string[], info: { lines: number }) => {
      records.push({ line: info.lines - newlinesIn(cells), cells });
      return null;
    },
  });
  parser.on('error', () => {}); // reported through write()/end() callbacks
  parser.resume();
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
      await write(parser, chunk.subarray(at, at + SLICE_BYTES));
      if (records.length > 0) {
        yield records;
        records = [];
      }
    }
  }
  const lastRecord = await end(parser);
  if (lastRecord) records.push(lastRecord);
  if (records.length > 0) yield records;
}

function newlinesIn(cells: string[]): number {
  let count = 0;
  for (const cell of cells) {
    for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) count++;
  }
  return count;
}

function write(parser: ReturnType<typeof parse>, slice: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    parser.write(slice, (err) => (err ? reject(unreadable(err as CsvError)) : resolve()));
  });
}

/** Ends the parse; a quote left open at the end of the file is one bad record, not a bad file. */
function end(parser: ReturnType<typeof parse>): Promise<CsvRecord | undefined> {
  return new Promise((resolve, reject) => {
    parser.end((err?: Error | null) => {
      if (!err) return resolve(undefined);
      const csvError = err as CsvError & { lines?: number };
      if (csvError.code === 'CSV_QUOTE_NOT_CLOSED') {
        return resolve({ line: csvError.lines ?? 0, error: 'A quoted field is never closed before the end of the file.' });
      }
      reject(unreadable(csvError));
    });
  });
}

function unreadable(err: CsvError & { lines?: number }): ImportFailure {
  const line = err.lines ?? null;
  if (err.code === 'CSV_MAX_RECORD_SIZE') {
    return new ImportFailure(line, `A row is longer than ${MAX_RECORD_CHARS} characters; is a quote left open before line ${line}?`);
  }
  return new ImportFailure(line, `The file is not valid CSV: ${err.message}`);
}
