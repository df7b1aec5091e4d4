/** Every relative link of README.md and docs/ (guides and docs/research/) points at an existing file. */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? markdownFiles(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
}

/** The relative link targets of a markdown text (no http:, no pure #anchors). */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('documentation links', () => {
  const files = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

  it('the link extractor finds links (it can fail)', () => {
    expect(relativeLinks('see [a](x.md), [b](../y.svg#top), [c](https://e.org), [d](#here)')).toEqual(['x.md', '../y.svg']);
  });

  it('every relative link resolves', () => {
    const broken: string[] = [];
    let n = 0;
    for (const f of files) {
      for (const t of relativeLinks(fs.readFileSync(f, 'utf8'))) {
        n++;
        if (!fs.existsSync(path.resolve(path.dirname(f), t))) broken.push(`${path.relative(ROOT, f)} -> ${t}`);
      }
    }
    expect(broken).toEqual([]);
    expect(n).toBeGreaterThan(30);
  });

  it('the research results live under docs/research/ and the guides link them', () => {
    expect(fs.existsSync(path.join(ROOT, 'docs/research/README.md'))).toBe(true);
    expect(fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => /^(knorm|objective-perturbation|optimal-noise)/.test(f))).toEqual([]);
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('](docs/research/README.md)');
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('](docs/threat-model.md)');
  });
});
