/**
 * A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe` (fd 3: commands to the
 * browser, fd 4: responses and events; messages are JSON terminated by a NUL byte). It drives
 * Debian's /usr/bin/chromium headless, with no npm dependency and no browser download.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Pending {
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
}

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

export class Browser {
  private readonly proc: ChildProcess;
  private readonly input: Writable;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners: ((e: CdpEvent) => void)[] = [];
  private buf = '';
  readonly userDataDir: string;

  private constructor(proc: ChildProcess, userDataDir: string) {
    this.proc = proc;
    this.userDataDir = userDataDir;
    this.input = proc.stdio[3] as Writable;
    const output = proc.stdio[4] as Readable;
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      this.buf += chunk;
      let i: number;
      while ((i = this.buf.indexOf('\0')) >= 0) {
        const msg = JSON.parse(this.buf.slice(0, i)) as { id?: number; result?: Record<string, unknown>; error?: { message: string }; method?: string; params?: Record<string, unknown>; sessionId?: string };
        this.buf = this.buf.slice(i + 1);
        if (msg.id !== undefined) {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          if (msg.error) p?.reject(new Error(msg.error.message));
          else p?.resolve(msg.result ?? {});
        } else if (msg.method) {
          for (const l of this.listeners) l({ method: msg.method, params: msg.params ?? {}, sessionId: msg.sessionId });
        }
      }
    });
  }

  /** Launch headless chromium with the flags of the issue and a fresh profile. */
  static launch(): Browser {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`chromium not found at ${CHROMIUM} (install Debian's chromium: bash .ci/install-chromium)`);
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpkit-chromium-'));
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      `--user-data-dir=${userDataDir}`,
      '--remote-debugging-pipe',
      'about:blank',
    ];
    const proc = spawn(CHROMIUM, args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
    return new Browser(proc, userDataDir);
  }

  onEvent(f: (e: CdpEvent) => void): void {
    this.listeners.push(f);
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const msg = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.input.write(`${msg}\0`);
    });
  }

  waitFor(method: string, sessionId: string | undefined, timeoutMs = 20_000): Promise<CdpEvent> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timeout waiting for ${method}`)), timeoutMs);
      this.onEvent((e) => {
        if (e.method === method && (sessionId === undefined || e.sessionId === sessionId)) {
          clearTimeout(t);
          resolve(e);
        }
      });
    });
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.send('Browser.close'), new Promise((r) => setTimeout(r, 2000))]);
    } catch {
      // already gone
    }
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (this.proc.exitCode === null && this.proc.signalCode === null) {
        this.proc.kill('SIGKILL');
        await exited;
      }
    }
    fs.rmSync(this.userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

export interface PageCheck {
  /** Console errors, uncaught exceptions and error log entries (e.g. CSP violations, failed loads). */
  errors: string[];
  /** Requests to anything but file: and data: URLs. */
  network: string[];
  /** Result of the probe expression evaluated after load. */
  probe: unknown;
}

/** Open `url`, collect errors and network requests, evaluate `probe`, optionally screenshot the full page (viewport `width` px wide). */
export async function checkPage(browser: Browser, url: string, probe: string, screenshot?: string, width = 1100): Promise<PageCheck> {
  const { targetId } = (await browser.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
  const { sessionId } = (await browser.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
  const errors: string[] = [];
  const network: string[] = [];
  browser.onEvent((e) => {
    if (e.sessionId !== sessionId) return;
    if (e.method === 'Runtime.consoleAPICalled' && (e.params.type === 'error' || e.params.type === 'assert')) {
      errors.push(`console.${String(e.params.type)}: ${JSON.stringify((e.params.args as { value?: unknown }[]).map((a) => a.value))}`);
    } else if (e.method === 'Runtime.exceptionThrown') {
      errors.push(`exception: ${JSON.stringify((e.params.exceptionDetails as { text?: string }).text)}`);
    } else if (e.method === 'Log.entryAdded') {
      const entry = e.params.entry as { level: string; text: string };
      if (entry.level === 'error') errors.push(`log: ${entry.text}`);
    } else if (e.method === 'Network.requestWillBeSent') {
      const u = (e.params.request as { url: string }).url;
      if (!u.startsWith('file:') && !u.startsWith('data:')) network.push(u);
    }
  });
  await browser.send('Runtime.enable', {}, sessionId);
  await browser.send('Log.enable', {}, sessionId);
  await browser.send('Network.enable', {}, sessionId);
  await browser.send('Page.enable', {}, sessionId);
  await browser.send('Emulation.setDeviceMetricsOverride', { width, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
  const loaded = browser.waitFor('Page.loadEventFired', sessionId);
  await browser.send('Page.navigate', { url }, sessionId);
  await loaded;
  const ev = (await browser.send('Runtime.evaluate', { expression: probe, returnByValue: true }, sessionId)) as { result: { value?: unknown } };
  if (screenshot) {
    const m = (await browser.send('Page.getLayoutMetrics', {}, sessionId)) as { cssContentSize: { width: number; height: number } };
    const height = Math.min(16000, Math.ceil(m.cssContentSize.height));
    await browser.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
    const shot = (await browser.send('Page.captureScreenshot', { format: 'png' }, sessionId)) as { data: string };
    fs.mkdirSync(path.dirname(screenshot), { recursive: true });
    fs.writeFileSync(screenshot, Buffer.from(shot.data, 'base64'));
  }
  await browser.send('Target.closeTarget', { targetId });
  return { errors, network, probe: ev.result.value };
}
