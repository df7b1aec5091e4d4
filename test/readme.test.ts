/**
 * Keeps the README true: every ```ts block of README.md is written to a module under
 * test/.readme/ (ignored by git) and imported, with `dpkit` resolved to src/index.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('README snippets', () => {
  it('has TypeScript snippets', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });
  const dir = join(root, 'test', '.readme');
  mkdirSync(dir, { recursive: true });
  blocks.forEach((code, i) => {
    it(`snippet ${i + 1} runs`, async () => {
      const file = join(dir, `snippet-${i + 1}.ts`);
      const src = code.replace(/from 'dpkit\/node'/g, `from '${join(root, 'src/node/index.ts')}'`).replace(/from 'dpkit'/g, `from '${join(root, 'src/index.ts')}'`);
      writeFileSync(file, `${src}\nexport {};\n`);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        await import(pathToFileURL(file).href);
        expect(log).toHaveBeenCalled();
      } finally {
        log.mockRestore();
      }
    });
  });
});
