/**
 * A small SVG writer for piecewise-constant densities (the optimal noise distributions): step
 * curves, filled or outlined, with axes, ticks and a legend. Returns the SVG text (no DOM needed).
 */
export interface StepSeries {
  label: string;
  /** Cell edges x_0 < ... < x_n. */
  edges: ArrayLike<number>;
  /** Height on each cell (n values). */
  heights: ArrayLike<number>;
  color: string;
  /** 'fill' (shaded) or 'line' (outline only). */
  style?: 'fill' | 'line';
}

export interface StepPlotOptions {
  title?: string;
  width?: number;
  height?: number;
  xlabel?: string;
  ylabel?: string;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function niceTicks(lo: number, hi: number, count = 6): number[] {
  const span = hi - lo;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) ?? 10 * mag;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12 * span; t += step) out.push(Math.abs(t) < 1e-12 * step ? 0 : t);
  return out;
}

function fmt(x: number): string {
  return Number(x.toPrecision(6)).toString();
}

/** Render step densities as an SVG document. */
export function stepPlotSvg(series: StepSeries[], opts: StepPlotOptions = {}): string {
  const W = opts.width ?? 640;
  const H = opts.height ?? 360;
  const m = { l: 60, r: 20, t: opts.title ? 36 : 16, b: 48 };
  let xlo = Infinity;
  let xhi = -Infinity;
  let yhi = 0;
  for (const s of series) {
    xlo = Math.min(xlo, s.edges[0]!);
    xhi = Math.max(xhi, s.edges[s.edges.length - 1]!);
    for (let j = 0; j < s.heights.length; j++) yhi = Math.max(yhi, s.heights[j]!);
  }
  if (!(yhi > 0)) yhi = 1;
  yhi *= 1.08;
  const X = (x: number) => m.l + ((x - xlo) / (xhi - xlo)) * (W - m.l - m.r);
  const Y = (y: number) => H - m.b - (y / yhi) * (H - m.t - m.b);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="white"/>`);
  if (opts.title) parts.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(opts.title)}</text>`);
  // axes and ticks
  parts.push(`<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="black"/>`);
  parts.push(`<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="black"/>`);
  for (const t of niceTicks(xlo, xhi)) {
    parts.push(`<line x1="${X(t).toFixed(2)}" y1="${H - m.b}" x2="${X(t).toFixed(2)}" y2="${H - m.b + 5}" stroke="black"/>`);
    parts.push(`<text x="${X(t).toFixed(2)}" y="${H - m.b + 18}" text-anchor="middle">${fmt(t)}</text>`);
  }
  for (const t of niceTicks(0, yhi, 5)) {
    parts.push(`<line x1="${m.l - 5}" y1="${Y(t).toFixed(2)}" x2="${m.l}" y2="${Y(t).toFixed(2)}" stroke="black"/>`);
    parts.push(`<text x="${m.l - 8}" y="${(Y(t) + 4).toFixed(2)}" text-anchor="end">${fmt(t)}</text>`);
  }
  if (opts.xlabel) parts.push(`<text x="${(m.l + W - m.r) / 2}" y="${H - 10}" text-anchor="middle">${esc(opts.xlabel)}</text>`);
  if (opts.ylabel) parts.push(`<text x="16" y="${(m.t + H - m.b) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(m.t + H - m.b) / 2})">${esc(opts.ylabel)}</text>`);
  // series
  series.forEach((s, i) => {
    const pts: string[] = [`M ${X(s.edges[0]!).toFixed(2)} ${Y(0).toFixed(2)}`];
    for (let j = 0; j < s.heights.length; j++) {
      const y = Y(s.heights[j]!).toFixed(2);
      pts.push(`L ${X(s.edges[j]!).toFixed(2)} ${y}`, `L ${X(s.edges[j + 1]!).toFixed(2)} ${y}`);
    }
    pts.push(`L ${X(s.edges[s.edges.length - 1]!).toFixed(2)} ${Y(0).toFixed(2)}`);
    const fill = s.style === 'line' ? 'none' : s.color;
    parts.push(`<path d="${pts.join(' ')}" fill="${fill}" fill-opacity="${s.style === 'line' ? 0 : 0.35}" stroke="${s.color}" stroke-width="${s.style === 'line' ? 2 : 1}"/>`);
    const ly = m.t + 8 + 18 * i;
    parts.push(`<rect x="${W - m.r - 190}" y="${ly - 9}" width="14" height="10" fill="${fill}" fill-opacity="${s.style === 'line' ? 0 : 0.35}" stroke="${s.color}" stroke-width="2"/>`);
    parts.push(`<text x="${W - m.r - 170}" y="${ly}">${esc(s.label)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
