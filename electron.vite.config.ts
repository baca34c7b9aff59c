import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';
import { resolve } from 'node:path';

// Custom layout (electron-vite docs): electron/main, electron/preload, and a root renderer/.
// Native modules (better-sqlite3, keytar) stay external: they are loaded from node_modules at run time.
export default defineConfig({
  main: {
    build: { rollupOptions: { input: { index: resolve(import.meta.dirname, 'electron/main/index.ts') } } },
  },
  // Sandboxed preloads cannot be ES modules: one CommonJS file (electron/main/index.ts loads index.cjs).
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [svelte()],
    // Minified: the UI's first render parses less script (electron-vite leaves it unminified by default).
    build: { minify: true, rollupOptions: { input: { index: resolve(import.meta.dirname, 'renderer/index.html') } } },
  },
});
