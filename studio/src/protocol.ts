/** Messages between the studio page and its worker (structured-cloned). */
import type { Result, ReleaseSpec, ColumnSchema } from './plan.js';

export type ToWorker =
  | { type: 'load'; file: File }
  | { type: 'run'; releases: ReleaseSpec[]; schema: [string, ColumnSchema][]; alpha: number; seed?: string }
  | { type: 'cancel' }
  | { type: 'ping' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; phase: 'load' | 'release'; fraction: number; label: string }
  | { type: 'loaded'; rows: number; names: string[]; numericCounts: number[]; types?: ('numeric' | 'categorical' | 'mixed')[] }
  | { type: 'load-error'; message: string }
  | { type: 'result'; index: number; result: Result }
  | { type: 'failed'; index: number; name: string; message: string }
  | { type: 'done'; cancelled: boolean; completed: number };
