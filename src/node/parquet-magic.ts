/**
 * The public frame of a Parquet file, checked before the budget check so that a file that is not
 * Parquet at all is refused for free rather than failing (charged) when the engine reads it.
 *
 * Apache Parquet format specification, "File Format": a file is
 * `PAR1 <column chunks> <FileMetaData> <4-byte little-endian length of FileMetaData> PAR1`.
 * Only the first 4 and the last 8 bytes are read: the two magics and the footer length, which must
 * fit between them. They are structure, not values (every Parquet file of any content has them),
 * so the answer reveals nothing about the records. A file with a sound frame but a damaged footer
 * or pages is still read by the engine after the check (and charged if it fails there).
 */
import fs from 'node:fs';
import { DataSourceError } from './engine/engine.js';

const MAGIC = Buffer.from('PAR1', 'latin1');

/** Throws a {@link DataSourceError} naming `file` when it is not framed like a Parquet file. */
export function checkParquetMagic(file: string): void {
  const refuse = (why: string): never => {
    throw new DataSourceError(`cannot read ${file} as Parquet: ${why} (a Parquet file starts and ends with the 4 bytes PAR1)`);
  };
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return refuse('the file cannot be opened');
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return refuse('it is not a regular file');
    // PAR1 + footer length + PAR1: 12 bytes at the very least.
    if (st.size < 12) return refuse(`it has ${st.size} bytes`);
    const head = Buffer.alloc(4);
    const tail = Buffer.alloc(8);
    fs.readSync(fd, head, 0, 4, 0);
    fs.readSync(fd, tail, 0, 8, st.size - 8);
    // (A file with an encrypted footer is framed by PARE instead, which dpkit does not read.)
    if (!head.equals(MAGIC)) return refuse('it does not start with PAR1');
    if (!tail.subarray(4).equals(MAGIC)) return refuse('it does not end with PAR1');
    const footer = tail.readUInt32LE(0);
    if (footer === 0 || footer > st.size - 12) return refuse('its footer length does not fit in the file');
  } finally {
    fs.closeSync(fd);
  }
}
