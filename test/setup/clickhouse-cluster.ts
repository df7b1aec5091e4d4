/**
 * Vitest global setup: the two-shard ClickHouse cluster of scripts/clickhouse-cluster.sh for the
 * engine tests (test/node/engine/cluster.ts). With DPKIT_CLICKHOUSE set (CI starts the cluster
 * itself) nothing is done; otherwise a cluster that already answers is used, or one is started here
 * and stopped after the run. If none can be started (clickhouse-server missing), DPKIT_CLICKHOUSE
 * stays unset and every cluster suite is a failing test naming the cause: never a skip.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/clickhouse-cluster.sh');
const cluster = (cmd: 'status' | 'start' | 'stop'): string => execFileSync('bash', [SCRIPT, cmd], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

export default function setup(): (() => void) | undefined {
  if (process.env.DPKIT_CLICKHOUSE !== undefined) return undefined;
  try {
    cluster('status');
    process.env.DPKIT_CLICKHOUSE = 'http://127.0.0.1:18123';
    return undefined;
  } catch {
    // not running: start it below
  }
  try {
    process.env.DPKIT_CLICKHOUSE = cluster('start');
  } catch {
    return undefined;
  }
  return () => {
    cluster('stop');
  };
}
