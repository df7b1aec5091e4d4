/**
 * `dpkit noise optimize|compare`: the optimal-noise optimiser of src/mechanisms/optimal-noise
 * (Selvi, Liu & Wiesemann, linear programming over piecewise-uniform densities) from the command
 * line. JSON goes to stdout; `optimize` also writes an HTML report with the density plotted against
 * the Laplace density of the same eps (no data are involved: nothing is spent).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { InvalidArgumentError } from '../errors.js';
import { compareNoise, optimizeNoise, type OptimizeNoiseOptions } from '../mechanisms/optimal-noise/index.js';
import { renderReport, fmt } from './report.js';
import { makeProgress } from './terminal.js';
import { parseDecimal } from './cli-number.js';

interface NoiseOpts {
  eps: number;
  delta: number;
  sensitivity: number;
  loss: 'l1' | 'l2';
  beta?: number;
  support?: number;
  timeLimit?: number;
  /** false with --no-commensurate (the library's `commensurate: false`). */
  commensurate?: boolean;
  report?: string;
  certificate?: boolean;
  json?: boolean;
  quiet?: boolean;
}

function positive(name: string) {
  return (v: string): number => {
    const x = parseDecimal(v, name, 'must be a number > 0');
    if (!(Number.isFinite(x) && x > 0)) throw new InvalidArgumentError(name, 'must be a number > 0', v);
    return x;
  };
}

function unit(name: string) {
  return (v: string): number => {
    const x = parseDecimal(v, name, 'must be in (0, 1)');
    if (!(x > 0 && x < 1)) throw new InvalidArgumentError(name, 'must be in (0, 1)', v);
    return x;
  };
}

function common(cmd: Command): Command {
  return cmd
    .requiredOption('--eps <eps>', 'privacy parameter epsilon', positive('--eps'))
    .requiredOption('--delta <delta>', 'privacy parameter delta in (0, 1)', unit('--delta'))
    .option('--sensitivity <s>', 'sensitivity of the query', positive('--sensitivity'), 1)
    .addOption(new Option('--loss <loss>', 'expected loss to minimise').choices(['l1', 'l2']).default('l1'))
    .option('--beta <width>', 'cell width of the grid (default sensitivity/20)', positive('--beta'))
    .option('--no-commensurate', 'accept a --beta that does not divide the sensitivity (the density is still exactly verified, but such grids can lose to the truncated Laplace)')
    .option('--support <S>', 'half-width of the support [-S, S] (default: the truncated-Laplace support)', positive('--support'))
    .option('--time-limit <seconds>', 'time limit of the LP solves', positive('--time-limit'))
    .option('--json', 'JSON on stdout (the default; with compare, overrides --text)')
    .option('-q, --quiet', 'print only the JSON (or table) and errors');
}

function optimizeOptions(o: NoiseOpts): OptimizeNoiseOptions {
  const opt: OptimizeNoiseOptions = { eps: o.eps, delta: o.delta, sensitivity: o.sensitivity, loss: o.loss };
  if (o.beta !== undefined) opt.beta = o.beta;
  if (o.support !== undefined) opt.support = o.support;
  if (o.timeLimit !== undefined) opt.timeLimit = o.timeLimit;
  if (o.commensurate === false) opt.commensurate = false;
  return opt;
}

/**
 * Runs the optimiser's call `f`, with the library's advice for an incommensurate `beta` ("pass
 * commensurate: false") given as the flag that does it on the command line (`--no-commensurate`).
 */
async function withFlagNames<T>(beta: number | undefined, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof InvalidArgumentError && e.argument === 'beta' && e.rule.includes('pass commensurate: false')) {
      throw new InvalidArgumentError('--beta', e.rule.replace('pass commensurate: false', 'pass --no-commensurate'), beta);
    }
    throw e;
  }
}

/** The `noise` command with its `optimize` and `compare` subcommands. */
export function noiseCommand(io: { out: (s: string) => void; err: (s: string) => void }, setCode: (c: number) => void): Command {
  const noise = new Command('noise').description('Optimal noise distributions by linear programming (no data read, nothing spent).');

  const optimize = common(new Command('optimize'))
    .description('Optimise a noise density for (eps, delta) and a sensitivity; print it as JSON and write an HTML plot.')
    .option('--report <file>', 'HTML report with the density plot', 'out/noise.html')
    .option('--no-certificate', 'skip the certified lower bound (faster)')
    .addHelpText('after', '\nExample: dpkit noise optimize --eps 1 --delta 1e-6 --sensitivity 1 --loss l1')
    .action(async (o: NoiseOpts) => {
      const progress = makeProgress();
      const opt = optimizeOptions(o);
      if (o.certificate === false) opt.certificate = false;
      opt.onProgress = (p) => progress.update(`${p.phase} bound: LP ${p.iteration}, objective ${fmt(p.lpObjective)}`);
      let d;
      try {
        d = await withFlagNames(o.beta, () => optimizeNoise(opt));
      } finally {
        progress.done();
      }
      const edges = Array.from(d.edges);
      const lo = edges[0]!;
      const hi = edges[edges.length - 1]!;
      const x: number[] = [];
      for (let i = 0; i <= 400; i++) x.push(lo + ((hi - lo) * i) / 400);
      const b = o.sensitivity / o.eps;
      const report = path.resolve(o.report ?? 'out/noise.html');
      fs.mkdirSync(path.dirname(report), { recursive: true });
      fs.writeFileSync(
        report,
        renderReport({
          title: `Optimal noise for eps=${fmt(o.eps)}, delta=${fmt(o.delta)}, sensitivity ${fmt(o.sensitivity)} (${o.loss})`,
          dataDescription: 'none (data-independent noise)',
          generated: new Date().toISOString(),
          results: [],
          notes: [
            `Expected ${o.loss} loss of the optimised density: ${fmt(d.expectedLoss)}${d.lowerBound !== null ? `; certified lower bound over all (eps, delta) noise: ${fmt(d.lowerBound)}` : ''}; Laplace(${fmt(b)}) for pure eps: ${fmt(o.loss === 'l1' ? b : 2 * b * b)}.`,
          ],
          densities: [
            {
              title: 'density of the noise',
              x,
              series: [
                { name: 'optimised', y: x.map((v) => d.density(v)) },
                { name: `Laplace(b=${fmt(b)})`, y: x.map((v) => Math.exp(-Math.abs(v) / b) / (2 * b)) },
              ],
            },
          ],
        }),
      );
      io.out(
        JSON.stringify(
          { eps: o.eps, delta: o.delta, sensitivity: o.sensitivity, loss: o.loss, expectedLoss: d.expectedLoss, lowerBound: d.lowerBound, gap: d.gap, cells: edges.length - 1, distribution: d.toJSON(), report },
          null,
          2,
        ),
      );
      if (!o.quiet) for (const w of d.stats?.warnings ?? []) io.err(`dpkit: warning: ${w}`);
      if (!o.quiet) io.err(`dpkit: wrote ${path.relative(process.cwd(), report) || report}`);
      setCode(0);
    });

  const compare = common(new Command('compare'))
    .description('Expected loss of the optimised noise (and its certified lower bound) next to Laplace, Gaussian, truncated Laplace and staircase.')
    .option('--text', 'print an aligned table instead of JSON')
    .addHelpText('after', '\nExample: dpkit noise compare --eps 1 --delta 1e-6 --loss l2 --text')
    .action(async (o: NoiseOpts & { text?: boolean }) => {
      const progress = makeProgress();
      progress.update('optimising');
      let r;
      try {
        r = await withFlagNames(o.beta, () => compareNoise(optimizeOptions(o)));
      } finally {
        progress.done();
      }
      io.out(o.text && !o.json ? r.text : JSON.stringify({ eps: o.eps, delta: o.delta, sensitivity: o.sensitivity, loss: o.loss, rows: r.rows }, null, 2));
      setCode(0);
    });
  noise.addCommand(optimize);
  noise.addCommand(compare);
  return noise;
}
