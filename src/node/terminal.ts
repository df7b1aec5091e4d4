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

/** The readable table of private results printed by `dpkit run` and `dpkit describe`. */
export function resultsTable(results: ReleaseResult[]): string {
  const level = results[0]?.level ?? 0.95;
  const head = ['release', 'ε', 'private value', `${fmt(100 * level)}% interval`, 'mechanism, noise scale'];
  const rows: string[][] = [];
  for (const r of results) {
    const sym = r.mechanism.startsWith('gaussian') ? 'σ' : r.mechanism === 'laplace' ? 'b' : r.mechanism === 'exponential' ? '2/ε' : 'scale';
    const scale = r.scale === null ? '' : ` ${sym}=${Array.isArray(r.scale) ? r.scale.map(fmt).join('/') : fmt(r.scale)}`;
    const mech = `${r.mechanism}${scale}${r.delta ? `, δ=${fmt(r.delta)}` : ''}`;
    // The ε column is what the ledger was charged; a converted release also shows its own claim.
    const converted = r.charged.neighbors !== r.neighbors || r.charged.eps !== r.eps || r.charged.delta !== r.delta;
    const eps = converted ? `${fmt(r.charged.eps)} (claims ${fmt(r.eps)}, ${r.neighbors === 'unbounded' ? 'add/remove' : 'replace'})` : fmt(r.eps);
    if (r.value !== undefined) {
      rows.push([safeText(r.name) + (r.nonPrivate ? ' [NOT PRIVATE input]' : ''), eps, fmt(r.value), fmtInterval(r.interval), safeText(mech)]);
    } else {
      rows.push([safeText(r.name), eps, '', '', safeText(mech)]);
      const labels = r.labels ?? [];
      labels.forEach((l, i) => rows.push([`  ${safeText(l)}`, '', fmt(r.values?.[i]), fmtInterval(r.intervals?.[i] ?? null), '']));
    }
  }
  const widths = head.map((h, j) => Math.min(j === 0 ? 44 : 40, Math.max([...h].length, ...rows.map((r) => [...r[j]!].length))));
  const clip = (s: string, w: number) => ([...s].length > w ? `${[...s].slice(0, w - 1).join('')}…` : s);
  const line = (cells: string[]) => cells.map((c, j) => pad(clip(c, widths[j]!), widths[j]!, j === 1 || j === 2)).join('  ');
  const out = [line(head), widths.map((w) => '─'.repeat(w)).join('  ')];
  for (const r of rows) out.push(line(r).trimEnd());
  return out.join('\n');
}
