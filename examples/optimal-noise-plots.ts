/**
 * Writes the density plots of the appendix's Figures 1 and 2 (000) to docs/research/:
 *  - docs/research/optimal-noise-symmetric-vs-asymmetric.svg: Delta = 1, beta = 0.05, (eps, delta) = (1, 0.2),
 *    c(x) = |x| (shaded) vs c(x) = |x| + 1[x > 0]|x| (lines);
 *  - docs/research/optimal-noise-l1-vs-l2.svg: Delta = 10, beta = 0.5, (eps, delta) = (1, 0.4), l1 vs l2.
 * Run: npx tsx examples/optimal-noise-plots.ts
 */
import { writeFileSync } from 'node:fs';
import { optimizeNoise, stepPlotSvg, type OptimizedNoise } from '../src/mechanisms/optimal-noise/index.js';

function dens(n: OptimizedNoise): number[] {
  return Array.from(n.probabilities, (p, j) => p / n.grid.widths[j]!);
}

const a = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.05, support: 2, loss: 'l1', certificate: false });
const b = await optimizeNoise({ eps: 1, delta: 0.2, sensitivity: 1, beta: 0.05, support: 2, loss: 'asymmetric', certificate: false });
writeFileSync(
  'docs/research/optimal-noise-symmetric-vs-asymmetric.svg',
  stepPlotSvg(
    [
      { label: `|x| (E loss ${a.expectedLoss.toFixed(4)})`, edges: a.edges, heights: dens(a), color: '#d62728', style: 'fill' },
      { label: `|x|+1[x>0]|x| (${b.expectedLoss.toFixed(4)})`, edges: b.edges, heights: dens(b), color: '#1f77b4', style: 'line' },
    ],
    { title: 'Optimal noise, Delta = 1, beta = 0.05, eps = 1, delta = 0.2 (cf. 000 Fig. 1)', xlabel: 'noise x', ylabel: 'density' },
  ),
);
console.log(`symmetric loss ${a.expectedLoss}, asymmetric ${b.expectedLoss} with P(X > 0) = ${b.probabilityPositive()}`);

const c = await optimizeNoise({ eps: 1, delta: 0.4, sensitivity: 10, beta: 0.5, loss: 'l1', certificate: false });
const d = await optimizeNoise({ eps: 1, delta: 0.4, sensitivity: 10, beta: 0.5, loss: 'l2', certificate: false });
writeFileSync(
  'docs/research/optimal-noise-l1-vs-l2.svg',
  stepPlotSvg(
    [
      { label: `l1 (E|X| ${c.expectedLoss.toFixed(3)})`, edges: c.edges, heights: dens(c), color: '#d62728', style: 'fill' },
      { label: `l2 (E X^2 ${d.expectedLoss.toFixed(2)})`, edges: d.edges, heights: dens(d), color: '#1f77b4', style: 'line' },
    ],
    { title: 'Optimal noise, Delta = 10, beta = 0.5, eps = 1, delta = 0.4 (cf. 000 Fig. 2)', xlabel: 'noise x', ylabel: 'density' },
  ),
);
console.log(`l1 ${c.expectedLoss} (support ${c.edges[0]}..${c.edges[c.edges.length - 1]}), l2 ${d.expectedLoss}`);
