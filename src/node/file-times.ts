/**
 * The times of the files a run writes (the ledger, its head and key, results.json, results.csv,
 * report.html, the stored results). They are written after releases whose durations depend on the
 * data, so the times a file system gives them (the time of each write) would show when each release
 * ended: a timing channel in file metadata, which copies (tar, rsync -t, cp -p) carry along. Every
 * such file gets, after each write, the run's one time as its access and modification time, taken
 * before any data were read (the time every ledger entry and results.json's `generated` carry).
 *
 * Not covered, because no process can set it: the inode change time (ctime) stays the time of the
 * last write (it is not copied with the file). Nor are directory times set (a directory's entries
 * change when a file is created or renamed in it). The progress lines on the terminal show wall
 * time anyway: the operator sees it.
 */
import fs from 'node:fs';
import { InvalidArgumentError } from '../errors.js';

/**
 * Sets the access and modification times of the open file `fd` to `time` (ISO 8601), best effort: a
 * file system that refuses it (e.g. a file another user owns: only its owner may set explicit times)
 * leaves the times of the write, and nothing fails because of it (the times carry no result).
 */
export function setFileTimes(fd: number, time: string): void {
  const t = new Date(time);
  if (typeof time !== 'string' || !Number.isFinite(t.getTime())) throw new InvalidArgumentError('time', 'must be an ISO 8601 time', time);
  try {
    fs.futimesSync(fd, t, t);
  } catch {
    // best effort (see above)
  }
}
