/**
 * Helpers shared by the K-norm simulation scripts: markdown tables and a small SVG line plot
 * (log2 x axis), written to docs/research/.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'research');

export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const fmt = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : v);
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(fmt).join(' | ')} |`)].join('\n');
}

export interface Series {
  name: string;
  values: number[];
}

const COLORS = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e'];

/** A line plot of series over x (log2 scale), with optional horizontal reference lines. */
export function svgPlot(title: string, xLabel: string, yLabel: string, x: number[], series: Series[], refs: { y: number; label: string }[] = []): string {
  const W = 640;
  const H = 400;
  const L = 70;
  const R = 170;
  const T = 40;
  const B = 50;
  const lx = x.map((v) => Math.log2(v));
  const x0 = Math.min(...lx);
  const x1 = Math.max(...lx);
  const all = series.flatMap((s) => s.values).concat(refs.map((r) => r.y)).filter(Number.isFinite);
  const y0 = 0;
  const y1 = Math.max(...all) * 1.05;
  const px = (v: number) => L + ((Math.log2(v) - x0) / (x1 - x0 || 1)) * (W - L - R);
  const py = (v: number) => H - B - ((Math.min(v, y1) - y0) / (y1 - y0 || 1)) * (H - T - B);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${W / 2 - R / 2}" y="20" text-anchor="middle" font-size="14">${title}</text>`);
  parts.push(`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`);
  for (const v of x) parts.push(`<text x="${px(v)}" y="${H - B + 16}" text-anchor="middle">${v >= 1 ? v : `1/${Math.round(1 / v)}`}</text>`);
  for (let k = 0; k <= 5; k++) {
    const v = y0 + ((y1 - y0) * k) / 5;
    parts.push(`<text x="${L - 6}" y="${py(v) + 4}" text-anchor="end">${v.toPrecision(3)}</text><line x1="${L}" y1="${py(v)}" x2="${W - R}" y2="${py(v)}" stroke="#eee"/>`);
  }
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">${xLabel}</text>`);
  parts.push(`<text x="16" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(T + H - B) / 2})">${yLabel}</text>`);
  for (const r of refs) parts.push(`<line x1="${L}" y1="${py(r.y)}" x2="${W - R}" y2="${py(r.y)}" stroke="#999" stroke-dasharray="4 3"/><text x="${W - R + 4}" y="${py(r.y) + 4}" fill="#666">${r.label}</text>`);
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length]!;
    const pts = s.values.map((v, k) => `${px(x[k]!).toFixed(1)},${py(v).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts}"/>`);
    s.values.forEach((v, k) => parts.push(`<circle cx="${px(x[k]!).toFixed(1)}" cy="${py(v).toFixed(1)}" r="3" fill="${c}"/>`));
    parts.push(`<text x="${W - R + 10}" y="${T + 18 * i + 30}" fill="${c}">${s.name}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export function writeDoc(name: string, content: string): void {
  writeFileSync(join(docsDir, name), content);
  console.log(`wrote docs/research/${name}`);
}

/** The smallest eps at which a series reaches a target (log-linear interpolation), or NaN. */
export function epsToReach(eps: number[], values: number[], target: number, decreasing = true): number {
  for (let k = 0; k < eps.length; k++) {
    const ok = decreasing ? values[k]! <= target : values[k]! >= target;
    if (ok) {
      if (k === 0) return eps[0]!;
      const [a, b] = [values[k - 1]!, values[k]!];
      const t = (target - a) / (b - a);
      return Math.pow(2, Math.log2(eps[k - 1]!) + t * (Math.log2(eps[k]!) - Math.log2(eps[k - 1]!)));
    }
  }
  return Number.NaN;
}
