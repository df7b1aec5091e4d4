/**
 * The API reference holds: EVERY function exported by the package root (the list is derived from
 * src/index.ts's exports, so a new export without complete comments fails) has `@param` for each
 * parameter, `@returns`, `@throws` and an `@example` whose code runs (written under test/.examples/,
 * ignored by git, with `dpkit` resolved to src/index.ts, and imported; it must print) and that
 * typechecks (strict), as a user's file would. The listed classes have the same for their
 * constructor and main methods, and a running class `@example`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it, vi } from 'vitest';
import * as dpkit from '../../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Root classes whose class comment has an `@example` that runs and whose constructor and listed methods are complete. */
const DOCUMENTED_CLASSES: Record<string, string[]> = {
  PrivacyAccountant: ['constructor', 'spend', 'check', 'remaining'],
  LinearRegressionDP: ['constructor', 'fit', 'predict'],
  LogisticRegressionDP: ['constructor', 'predict'],
  // fit of the CMS classifiers (LogisticRegressionDP, SvmDP) is CmsClassifier's.
  SvmDP: ['constructor', 'predict'],
  NaiveBayesDP: ['constructor', 'fit'],
  ZcdpFilter: ['constructor', 'check', 'spend'],
  RdpAccountant: ['constructor', 'composeSubsampledGaussian', 'getEpsilon'],
  ProximalCoordinateDescentDP: ['constructor', 'fit', 'predictProba', 'predict'],
  DpSgdClassifier: ['constructor', 'fit', 'predict'],
  // fit and predict of DpSgdRegressor are DpSgdClassifier's.
  DpSgdRegressor: ['constructor'],
  LaplaceSgdDP: ['constructor', 'fit', 'predict'],
  FunctionalLinearRegressionDP: ['constructor', 'fit', 'predict'],
  KNormLogisticRegressionDP: ['constructor', 'fit', 'predict'],
  LinearClassifierDP: ['constructor', 'fit', 'decisionFunction', 'predict'],
};

/**
 * Examples that run but do not typecheck, each for a reason to fix in the library (the test fails
 * when one of them typechecks again, so the entry is removed with the fix).
 */
const TYPE_ERRORS_KNOWN: Record<string, string> = {
};

/** Methods inherited from an abstract root class, documented there. */
const DOCUMENTED_METHODS: Record<string, string[]> = {
  CmsClassifier: ['fit'],
};

const program = ts.createProgram([join(root, 'src/index.ts')], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowJs: false, noEmit: true });
const checker = program.getTypeChecker();
const rootSymbol = checker.getSymbolAtLocation(program.getSourceFile(join(root, 'src/index.ts'))!)!;
const exported = new Map(checker.getExportsOfModule(rootSymbol).map((s) => [s.name, s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s]));

/** Every function the root exports (from the module's exports, not a hand-kept list). */
const ROOT_FUNCTIONS = [...exported].filter(([, s]) => s.flags & ts.SymbolFlags.Function).map(([n]) => n);
interface Doc {
  params: string[];
  tags: Map<string, string[]>;
}

/** The JSDoc tags of a declaration (the comment directly above it). */
function docOf(node: ts.Node): Doc {
  const tags = new Map<string, string[]>();
  for (const t of ts.getJSDocTags(node)) {
    const text = typeof t.comment === 'string' ? t.comment : (ts.getTextOfJSDocComment(t.comment) ?? '');
    const name = t.tagName.text;
    tags.set(name, [...(tags.get(name) ?? []), ts.isJSDocParameterTag(t) ? t.name.getText() : text]);
  }
  const params = ts.isFunctionLike(node) ? node.parameters.map((p) => p.name.getText()) : [];
  return { params, tags };
}

/** The public constructor and method names a class declares itself. */
function publicMembers(s: ts.Symbol): string[] {
  const cls = s.declarations!.find(ts.isClassDeclaration)!;
  return cls.members
    .filter((m) => (ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m)) && !(ts.getCombinedModifierFlags(m) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
    .map((m) => (ts.isConstructorDeclaration(m) ? 'constructor' : m.name!.getText()));
}

function checkComplete(what: string, d: Doc, needsReturns: boolean): void {
  expect(d.tags.get('param') ?? [], `${what}: @param for every parameter`).toEqual(d.params);
  if (needsReturns) expect(d.tags.has('returns'), `${what}: @returns`).toBe(true);
  expect(d.tags.has('throws'), `${what}: @throws`).toBe(true);
}

function exampleCode(what: string, d: Doc): string {
  const ex = d.tags.get('example')?.[0];
  expect(ex, `${what}: @example`).toBeDefined();
  const m = /```ts\n([\s\S]*?)```/.exec(ex!);
  expect(m, `${what}: the @example holds a \`\`\`ts block`).not.toBeNull();
  return m![1]!;
}

const dir = join(root, 'test', '.examples');
mkdirSync(dir, { recursive: true });

/** The example files written by this run (typechecked at the end). */
const written = new Map<string, string>();

async function runs(name: string, code: string): Promise<void> {
  const file = join(dir, `${name}.ts`);
  written.set(name, file);
  writeFileSync(file, `${code.replace(/from 'dpkit'/g, `from '${join(root, 'src/index.ts')}'`)}\nexport {};\n`);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(pathToFileURL(file).href);
    expect(log, `${name}: the example prints`).toHaveBeenCalled();
  } finally {
    log.mockRestore();
  }
}

describe('API reference: @param, @returns, @throws and a running @example', () => {
  it('finds the root functions (every one is checked below)', () => {
    expect(ROOT_FUNCTIONS.length).toBeGreaterThan(50);
  });

  it('lists every root model class (a public fit, or a name ending in DP, Classifier or Regressor) with its constructor and fit', () => {
    const models = [...exported].filter(([n, s]) => s.flags & ts.SymbolFlags.Class && (/(DP|Classifier|Regressor)$/.test(n) || publicMembers(s).includes('fit')));
    expect(models.length).toBeGreaterThan(10);
    for (const [n, s] of models) {
      const listed = DOCUMENTED_CLASSES[n] ?? DOCUMENTED_METHODS[n];
      expect(listed, `${n}: a root model class is in DOCUMENTED_CLASSES`).toBeDefined();
      for (const m of publicMembers(s).filter((x) => x === 'constructor' || x === 'fit')) expect(listed, `${n}.${m}`).toContain(m);
    }
    // (printed for the record)
    console.info(`documented: ${ROOT_FUNCTIONS.length} root functions, ${Object.keys(DOCUMENTED_CLASSES).length} classes`);
  });

  for (const name of ROOT_FUNCTIONS) {
    it(`${name}`, async () => {
      const sym = exported.get(name);
      expect(sym, name).toBeDefined();
      const decl = sym!.declarations!.find((d) => ts.getJSDocTags(d).length > 0) ?? sym!.declarations![0]!;
      const d = docOf(decl);
      checkComplete(name, d, true);
      expect(typeof (dpkit as Record<string, unknown>)[name]).toBe('function');
      await runs(name, exampleCode(name, d));
    });
  }

  for (const [name, members] of Object.entries(DOCUMENTED_CLASSES)) {
    it(`${name} (class)`, async () => {
      const sym = exported.get(name);
      expect(sym, name).toBeDefined();
      const cls = sym!.declarations!.find(ts.isClassDeclaration)!;
      for (const m of members) {
        const node = cls.members.find((x) => (m === 'constructor' ? ts.isConstructorDeclaration(x) : x.name?.getText() === m));
        expect(node, `${name}.${m}`).toBeDefined();
        checkComplete(`${name}.${m}`, docOf(node!), m !== 'constructor');
      }
      await runs(name, exampleCode(name, docOf(cls)));
    });
  }

  for (const [name, members] of Object.entries(DOCUMENTED_METHODS)) {
    it(`${name} (methods)`, () => {
      const cls = exported.get(name)!.declarations!.find(ts.isClassDeclaration)!;
      for (const m of members) {
        const node = cls.members.find((x) => x.name?.getText() === m);
        expect(node, `${name}.${m}`).toBeDefined();
        checkComplete(`${name}.${m}`, docOf(node!), true);
      }
    });
  }

  it('the examples typecheck (strict), as a user would compile them', () => {
    expect(written.size).toBeGreaterThan(50);
    const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, allowImportingTsExtensions: true, skipLibCheck: true, types: [] };
    const examples = ts.createProgram([...written.values()], options, undefined, program);
    for (const [name, file] of written) {
      const diags = ts.getPreEmitDiagnostics(examples, examples.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      const known = TYPE_ERRORS_KNOWN[name];
      if (known === undefined) expect(diags, `${name}: the example typechecks`).toEqual([]);
      else expect(diags.join('\n'), `${name}: the known type error (remove the entry when it is fixed)`).toContain(known);
    }
  });
});
