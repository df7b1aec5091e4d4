/**
 * The output files of a CLI run (`results.json`, `report.html`): the output directory is checked
 * BEFORE the budget check (so a directory that cannot be written costs nothing), `results.json` is
 * written before the report, and each file is written atomically (a temporary file renamed over
 * it, removed again when the write fails). A failure to write is an {@link OutputError} with one
 * clean line (the file and the errno code), never a raw stack.
 *
 * File times: given the run's one time (taken before any data were read; results.json's
 * `generated`), {@link writeOutputFile} sets the file's access and modification times to it before
 * the rename, so they do not show when the data-dependent releases ended (file-times.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DpkitError } from '../errors.js';
import { setFileTimes } from './file-times.js';

/** An output file or directory cannot be used or written. */
export class OutputError extends DpkitError {
  constructor(message: string) {
    super('ERR_OUTPUT', message);
  }
}

/** The file names a run writes in its output directory. */
export const OUTPUT_FILES = ['results.json', 'report.html', 'results.csv'] as const;

function errnoCode(e: unknown): string {
  const c = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof c === 'string' ? c : 'write error';
}

/**
 * Checks that `dir` can hold the outputs without creating anything: an existing `dir` must be a
 * writable directory in which results.json and report.html are not directories; a missing `dir`
 * must have a nearest existing ancestor that is a writable directory. `what` names the setting in
 * messages (e.g. `output.dir` or `--out`).
 */
export function checkOutputDir(dir: string, what: string): void {
  const abs = path.resolve(dir);
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs);
  } catch (e) {
    if (!absent(e)) throw new OutputError(`${what} ${dir} cannot be used (${errnoCode(e)})`);
  }
  if (st) {
    if (!st.isDirectory()) throw new OutputError(`${what} ${dir} exists and is not a directory`);
    if (!writable(abs)) throw new OutputError(`${what} ${dir} is not writable`);
    for (const f of OUTPUT_FILES) {
      const p = path.join(abs, f);
      if (fs.existsSync(p) && !fs.statSync(p).isFile()) throw new OutputError(`${what} ${dir}: ${f} exists and is not a regular file`);
    }
    return;
  }
  let up = path.dirname(abs);
  for (;;) {
    let s: fs.Stats | undefined;
    try {
      s = fs.statSync(up);
    } catch (e) {
      if (!absent(e)) throw new OutputError(`${what} ${dir} cannot be created (${errnoCode(e)} on ${up})`);
    }
    if (s) {
      if (!s.isDirectory()) throw new OutputError(`${what} ${dir} cannot be created: ${up} is not a directory`);
      if (!writable(up)) throw new OutputError(`${what} ${dir} cannot be created: ${up} is not writable`);
      return;
    }
    const next = path.dirname(up);
    if (next === up) throw new OutputError(`${what} ${dir} cannot be created`);
    up = next;
  }
}

/** The path does not exist (ENOENT), or a parent of it is a file (ENOTDIR): look further up. */
function absent(e: unknown): boolean {
  const c = (e as NodeJS.ErrnoException).code;
  return c === 'ENOENT' || c === 'ENOTDIR';
}

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes `text` to `file` atomically (temporary file, fsync, rename), creating its directory; on
 * failure the temporary file is removed and an {@link OutputError} names the file and the errno code.
 * `time`: the run's one time (ISO 8601), which the file's access and modification times are set to
 * (file-times.ts); without it they are the time of the write.
 */
export function writeOutputFile(file: string, text: string, time?: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeFileSync(fd, text);
      if (time !== undefined) setFileTimes(fd, time);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // the temporary file could not be removed either; the error below is what matters
    }
    throw new OutputError(`cannot write ${file} (${errnoCode(e)})`);
  }
}

let version: string | undefined;

/** The version of this dpkit (from its package.json), `unknown` when it cannot be read. */
export function dpkitVersion(): string {
  if (version === undefined) {
    try {
      const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      version = pkg.name === 'dpkit' && typeof pkg.version === 'string' ? pkg.version : 'unknown';
    } catch {
      version = 'unknown';
    }
  }
  return version;
}
