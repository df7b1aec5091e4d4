/**
 * A small streaming CSV parser (RFC 4180: comma separator, double-quoted fields with "" escapes,
 * LF or CRLF line ends) that hands every record to a callback, so a large file is parsed chunk by
 * chunk without holding its text twice. Runs in the browser (the studio's worker) and in Node.
 */

/** Feeds text chunks; calls `onRecord` with the fields of each complete record. */
export class CsvParser {
  private field = '';
  private fields: string[] = [];
  private inQuotes = false;
  /** The previous chunk ended on a quote inside a quoted field (an escaped "" or the closing quote). */
  private quotePending = false;
  private sawCr = false;
  private fieldStarted = false;

  constructor(private readonly onRecord: (fields: string[]) => void) {}

  push(chunk: string): void {
    let i = 0;
    const n = chunk.length;
    let field = this.field;
    while (i < n) {
      if (this.quotePending) {
        this.quotePending = false;
        if (chunk.charCodeAt(i) === 34) {
          field += '"';
          i++;
          continue;
        }
        this.inQuotes = false;
      }
      if (this.inQuotes) {
        const q = chunk.indexOf('"', i);
        if (q < 0) {
          field += chunk.slice(i);
          i = n;
          break;
        }
        field += chunk.slice(i, q);
        i = q + 1;
        if (i >= n) {
          this.quotePending = true;
          break;
        }
        if (chunk.charCodeAt(i) === 34) {
          field += '"';
          i++;
        } else this.inQuotes = false;
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (this.sawCr) {
        this.sawCr = false;
        if (c === 10) {
          i++;
          continue;
        }
      }
      if (c === 44) {
        this.fields.push(field);
        field = '';
        this.fieldStarted = true;
        i++;
      } else if (c === 10 || c === 13) {
        this.fields.push(field);
        field = '';
        this.emit();
        if (c === 13) this.sawCr = true;
        i++;
      } else if (c === 34 && field === '') {
        this.inQuotes = true;
        this.fieldStarted = true;
        i++;
      } else {
        // Fast path: copy up to the next separator, quote or line end.
        let j = i + 1;
        while (j < n) {
          const d = chunk.charCodeAt(j);
          if (d === 44 || d === 10 || d === 13 || d === 34) break;
          j++;
        }
        field += chunk.slice(i, j);
        this.fieldStarted = true;
        i = j;
        if (j < n && chunk.charCodeAt(j) === 34) {
          field += '"';
          i++;
        }
      }
    }
    this.field = field;
  }

  /** Ends the input (a last record without a line end is emitted). */
  end(): void {
    if (this.quotePending) {
      this.quotePending = false;
      this.inQuotes = false;
    }
    if (this.fieldStarted || this.field !== '' || this.fields.length > 0) {
      this.fields.push(this.field);
      this.field = '';
      this.emit();
    }
  }

  private emit(): void {
    const f = this.fields;
    this.fields = [];
    this.fieldStarted = false;
    // A blank line is not a record.
    if (f.length === 1 && f[0] === '') return;
    this.onRecord(f);
  }
}

/** Parses a whole text (tests, samples). */
export function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  const p = new CsvParser((r) => out.push(r));
  p.push(text);
  p.end();
  return out;
}
