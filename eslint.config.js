// Lint: the project's import rules (docs: README "Layout and import rules"), checked mechanically.
import tseslint from 'typescript-eslint';

const banned = (...groups) => ({ 'no-restricted-imports': ['error', { patterns: groups }] });
// Like banned(), plus named imports of a module that are off limits (paths entries).
const bannedWith = (paths, ...groups) => ({ 'no-restricted-imports': ['error', { paths, patterns: groups }] });
// IPC is one module per side (like GitHub Desktop): electron/main/ipc.ts registers every handler and
// electron/preload/index.ts exposes one method per channel; nothing else may send or receive.
const IPC_MAIN = { name: 'electron', importNames: ['ipcMain'], message: 'only electron/main/ipc.ts uses ipcMain' };
const IPC_RENDERER = { name: 'electron', importNames: ['ipcRenderer'], message: 'only electron/preload/index.ts uses ipcRenderer' };
const NODE = { group: ['node:*'], message: 'this layer runs in the browser too: no Node built-ins' };
const ELECTRON = { group: ['electron', 'electron/*'], message: 'only electron/main and electron/preload may import electron' };
const layer = (name, why) => ({ group: [`**/${name}/**`, `**/${name}`], message: why });

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**'] },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
  },
  {
    files: ['shared/**/*.ts'],
    rules: banned(NODE, ELECTRON, layer('electron', 'shared/ imports nothing of the project'), layer('sandbox', 'shared/ imports nothing of the project'), layer('renderer', 'shared/ imports nothing of the project')),
  },
  {
    files: ['sandbox/**/*.ts'],
    rules: banned(ELECTRON, layer('electron', 'the sandbox shares only shared/ with the client'), layer('renderer', 'the sandbox shares only shared/')),
  },
  {
    files: ['electron/engine/**/*.ts'],
    rules: banned(ELECTRON, layer('main', 'the engine is plain Node'), layer('cli', 'the engine is hosted by cli/, not the reverse'), layer('preload', 'engine/ imports shared/ and itself'), layer('renderer', 'engine/ imports shared/ and itself'), layer('sandbox', 'the engine talks to the sandbox over HTTP only')),
  },
  {
    files: ['electron/cli/**/*.ts'],
    rules: banned(
      ELECTRON,
      layer('main', 'cli/ imports engine/ and shared/'),
      layer('preload', 'cli/ imports engine/ and shared/'),
      layer('renderer', 'cli/ imports engine/ and shared/'),
      { group: ['**/sandbox/**', '!**/sandbox/index.js'], message: 'cli/ may start the sandbox only through sandbox/index.js' },
    ),
  },
  ...(() => {
    const main = [
      layer('preload', 'main/ imports engine/ and shared/'),
      layer('renderer', 'main/ imports engine/ and shared/'),
      layer('cli', 'main/ imports engine/ and shared/'),
      // "Try the sandbox" runs the built-in sandbox inside the desktop app, as `docsync serve` does.
      { group: ['**/sandbox/**', '!**/sandbox/index.js'], message: 'main/ may start the sandbox only through sandbox/index.js' },
    ];
    const preload = [
      layer('engine', 'preload/ imports shared/ only'),
      layer('main', 'preload/ imports shared/ only'),
      layer('cli', 'preload/ imports shared/ only'),
      layer('sandbox', 'preload/ imports shared/ only'),
      layer('renderer', 'preload/ imports shared/ only'),
    ];
    return [
      { files: ['electron/main/**/*.ts'], rules: bannedWith([IPC_MAIN, IPC_RENDERER], ...main) },
      { files: ['electron/main/ipc.ts'], rules: bannedWith([IPC_RENDERER], ...main) },
      { files: ['electron/preload/**/*.ts'], rules: bannedWith([IPC_MAIN, IPC_RENDERER], ...preload) },
      { files: ['electron/preload/index.ts'], rules: bannedWith([IPC_MAIN], ...preload) },
    ];
  })(),
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.js'],
    rules: banned(NODE, ELECTRON, layer('electron', 'the renderer talks to the engine only through the contract in shared/'), layer('sandbox', 'the renderer imports shared/ only')),
  },
);
