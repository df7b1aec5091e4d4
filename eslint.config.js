// @ts-check
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises',
  'http', 'https', 'module', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'tls', 'url', 'util', 'v8', 'vm',
  'worker_threads', 'zlib'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', 'coverage/**', 'studio/dist/**', 'test-artifacts/**', 'docs/api/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // All randomness must flow through dpkit's Rng (src/random/rng.ts).
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: "Use dpkit's Rng (cryptoRng/seededRng), never Math.random." }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-unreachable': 'error',
    },
  },
  {
    // The browser-safe core: no Node built-ins outside src/node/.
    files: ['src/**/*.ts'],
    ignores: ['src/node/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['node:*', '@duckdb/*'], message: 'Node-only code belongs in src/node/.' }],
        paths: nodeBuiltins.map((name) => ({ name, message: 'Node-only code belongs in src/node/.' })),
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'Node-only code belongs in src/node/.' }, { name: 'Buffer', message: 'Node-only code belongs in src/node/.' }],
    },
  },
);
