/**
 * Content types of the built renderer's files, for both hosts that serve them: the headless HTTP
 * server (electron/cli/ui-server.ts) and the desktop app's own scheme (electron/main/app-protocol.ts).
 * Both send nosniff, so a kind not listed is plain bytes, never guessed.
 */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.wasm': 'application/wasm', '.map': 'application/json',
  '.woff2': 'font/woff2', '.bcmap': 'application/octet-stream', '.pfb': 'application/octet-stream',
};

export function rendererFileType(name: string): string {
  const ext = /\.[a-z0-9]+$/i.exec(name)?.[0].toLowerCase();
  return (ext && TYPES[ext]) || 'application/octet-stream';
}
