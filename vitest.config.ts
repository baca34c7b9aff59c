import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The renderer's runes stores (*.svelte.ts) are tested in Node. Vitest's node environment is a
  // "server" consumer, for which the plugin compiles runes as for SSR (plain fields, no signals); the
  // stores run in a browser, so they are compiled for the client and run on Svelte's client runtime.
  plugins: [svelte({ configFile: false, dynamicCompileOptions: () => ({ generate: 'client' }) })],
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
