/**
 * Vite build of dpkit studio: a static folder (relative base, so it works from any static host or
 * sub-path) with the worker bundled from the app itself. DPKIT_STUDIO_TEST_HOOKS=1 builds the test
 * variant (a seed may be injected by the end-to-end test; the page says "TEST BUILD"); the
 * production build has no seeding code path.
 */
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const hooks = process.env.DPKIT_STUDIO_TEST_HOOKS === '1';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  define: { __STUDIO_TEST_HOOKS__: JSON.stringify(hooks) },
  build: {
    outDir: process.env.DPKIT_STUDIO_OUT_DIR ?? (hooks ? '../test-artifacts/studio/build-test' : 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  worker: { format: 'es' },
  preview: { host: '127.0.0.1', port: 4173, strictPort: false },
  server: { host: '127.0.0.1' },
});
