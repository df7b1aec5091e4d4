/**
 * Terminal output of the CLI: the results table, a progress bar that is drawn only on an
 * interactive terminal (stderr is a TTY and CI is not set), so pipes and CI logs stay clean, and
 * {@link safeText}, the one escape every printed line goes through.
 */
import type { ReleaseResult } from './execute.js';
import { fmt, fmtInterval } from './report.js';

/**
 * Control characters (C0 except `keep`, DEL, C1) and the Unicode bidirectional overrides and
 * isolates, which can rewrite or reorder what a terminal shows (e.g. `\x1b[2J` clears the screen).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `s` with every control character escaped as `\uXXXX` (e.g. ESC as `\u001b`), so a release name,
 * a data label, a level or a ledger entry name cannot drive the terminal. With `multiline`, `\n`
 * is kept (for text the CLI itself laid out over several lines). Idempotent: the escape is printable.
 */
export function safeText(s: string, multiline = false): string {
  return s.replace(UNSAFE, (c) => (multiline && c === '\n' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

export interface Progress {
  /** Set the label and the fraction done (0..1) of the current step. */
  update(label: string, fraction?: number): void;
  done(): void;
}

/** A progress bar on stderr when it is a terminal; a no-op otherwise. */
export function makeProgress(stream: NodeJS.WriteStream = process.stderr, enabled?: boolean): Progress {
  const on = enabled ?? (Boolean(stream.isTTY) && !process.env.CI && process.env.TERM !== 'dumb');
  if (!on) return { update() {}, done() {} };
  let last = '';
  let lastTime = 0;
  return {
    update(label, fraction) {
      const now = Date.now();
      const width = 24;
      const bar = fraction === undefined ? '' : `[${'#'.repeat(Math.round(fraction * width)).padEnd(width, '.')}] ${Math.round(fraction * 100)}% `;
      const cols = stream.columns ?? 80;
      const line = `${bar}${safeText(label)}`.slice(0, cols - 1);
      if (line === last || (now - lastTime < 50 && fraction !== undefined && fraction < 1)) return;
      last = line;
      lastTime = now;
      stream.write(`\r\x1b[2K${line}`);
    },
    done() {
      if (last !== '') stream.write('\r\x1b[2K');
      last = '';
    },
  };
}

function pad(s: string, w: number, right = false): string {
  const len = [...s].length;
  if (len >= w) return s;
  return right ? ' '.repeat(w - len) + s : s + ' '.repeat(w - len);
}

/** Options of {@link resultsTable}. */
export interface TableOptions {
  /** The width the table must fit (default 100 columns). */
  width?: number;
  /** Every column at its full width, however wide (`--wide`). */
  wide?: boolean;
}

/** Splits `s` into lines of at most `w` characters, preferring to break after a space, comma, slash or ')'. */
export function wrapCell(s: string, w: number): string[] {
  const chars = [...s];
  if (chars.length <= w) return [s];
  const lines: string[] = [];
  let rest = chars;
  while (rest.length > w) {
    let cut = -1;
    for (let k = w; k > Math.floor(w / 3); k--) {
      const c = rest[k - 1]!;
      if (c === ' ' || c === ',' || c === '/' || c === ')' || c === ':') {
        cut = k;
        break;
      }
    }
    if (cut < 0) cut = w;
    lines.push(rest.slice(0, cut).join('').trimEnd());
    rest = rest.slice(cut);
    while (rest[0] === ' ') rest = rest.slice(1);
  }
  if (rest.length > 0) lines.push(rest.join(''));
  return lines;
}

const MIN_WIDTH = [16, 5, 8, 12, 14];

/**
 * The readable table of private results printed by `dpkit run` and `dpkit describe`. It fits
 * `width` (100) columns: the widest columns are narrowed and their cells wrapped onto continuation
 * lines, so no name is cut; with `wide`, every cell is on one line.
 */
export function resultsTable(results: ReleaseResult[], opts: TableOptions = {}): string {
  const width = opts.width ?? 100;
  const level = results[0]?.level ?? 0.95;
  const head = ['release', 'ε', 'private value', `${fmt(100 * level)}% interval`, 'mechanism, noise scale'];
  const rows: string[][] = [];
  for (const r of results) {
    const sym = r.mechanism.startsWith('gaussian') ? 'σ' : r.mechanism === 'laplace' ? 'b' : r.mechanism === 'exponential' ? '2/ε' : 'scale';
    const scale = r.scale === null ? '' : Array.isArray(r.scale) ? ` ${sym}=(${r.scale.map(fmt).join(', ')})` : ` ${sym}=${fmt(r.scale)}`;
    const mech = `${r.mechanism}${scale}${r.delta ? `, δ=${fmt(r.delta)}` : ''}`;
    // The ε column is what the ledger was charged; a converted release also shows its own claim.
    const converted = r.charged.neighbors !== r.neighbors || r.charged.eps !== r.eps || r.charged.delta !== r.delta;
    const eps = r.reused
      ? `0 (reused; ${fmt(r.charged.eps)} earlier)`
      : converted
        ? `${fmt(r.charged.eps)} (claims ${fmt(r.eps)}, ${r.neighbors === 'unbounded' ? 'add/remove' : 'replace'})`
        : fmt(r.eps);
    const name = safeText(r.name) + (r.privacyUnit && r.privacyUnit !== 'row' ? ` (per ${safeText(r.privacyUnit)})` : '') + (r.nonPrivate ? ' [NOT PRIVATE input]' : '');
    if (r.value !== undefined) {
      rows.push([name, eps, fmt(r.value), fmtInterval(r.interval), safeText(mech)]);
    } else {
      rows.push([name, eps, '', '', safeText(mech)]);
      const labels = r.labels ?? [];
      labels.forEach((l, i) => rows.push([`  ${safeText(l)}`, '', fmt(r.values?.[i]), fmtInterval(r.intervals?.[i] ?? null), '']));
    }
  }
  const widths = head.map((h, j) => Math.max([...h].length, ...rows.map((r) => [...r[j]!].length)));
  if (!opts.wide) {
    // Narrow the widest column (down to its minimum) one character at a time until the table fits.
    const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
    while (total() > width) {
      let j = -1;
      for (let k = 0; k < widths.length; k++) if (widths[k]! > MIN_WIDTH[k]! && (j < 0 || widths[k]! > widths[j]!)) j = k;
      if (j < 0) break;
      widths[j]!--;
    }
  }
  const out: string[] = [];
  const emit = (cells: string[]) => {
    const wrapped = cells.map((c, j) => (opts.wide ? [c] : wrapCell(c, j === 0 && [...c].length > widths[0]! ? widths[0]! - 2 : widths[j]!)));
    const n = Math.max(...wrapped.map((w) => w.length));
    for (let k = 0; k < n; k++) {
      // Continuation lines of a name are indented by two, under the name they continue.
      const line = wrapped.map((w, j) => pad(k > 0 && j === 0 && w[k] !== undefined ? `  ${w[k]}` : (w[k] ?? ''), widths[j]!, j === 1 || j === 2)).join('  ');
      out.push(line.trimEnd());
    }
  };
  emit(head);
  out.push(widths.map((w) => '─'.repeat(w)).join('  '));
  for (const r of rows) emit(r);
  return out.join('\n');
}
