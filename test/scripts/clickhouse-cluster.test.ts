/**
 * scripts/clickhouse-cluster.sh stop: it stops only this cluster's servers. A PID recorded at start
 * may belong to another process once a server has died (PIDs are reused); `stop` must leave such a
 * process alone (it checks that the command line names one of the cluster's config files).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

const SCRIPT = path.resolve(__dirname, '../../scripts/clickhouse-cluster.sh');

/** Whether the child is still running 500 ms later (its exit, if any, is reaped by then). */
const stillRunning = (child: ChildProcess): Promise<boolean> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(false);
    const t = setTimeout(() => resolve(true), 500);
    child.once('exit', () => {
      clearTimeout(t);
      resolve(false);
    });
  });

it('stop leaves alone a process whose PID is recorded but that is not one of the cluster servers, and removes the state dir', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-ch-stop-'));
  const other = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    expect(other.pid).toBeGreaterThan(0);
    fs.writeFileSync(path.join(dir, 'pids'), `${other.pid}\n`);
    execFileSync('bash', [SCRIPT, 'stop'], { env: { ...process.env, DPKIT_CH_DIR: dir }, stdio: 'ignore' });
    expect(await stillRunning(other)).toBe(true);
    expect(fs.existsSync(dir)).toBe(false);
  } finally {
    other.kill('SIGKILL');
  }
});
