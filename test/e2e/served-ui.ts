// Set-up shared by the specs that drive the UI in Chromium through a real `docsync serve`: start it
// in a fresh data home, open its printed address, move between screens, drop files on the window and
// keep screenshots of a screen in both colour schemes.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Browser, type Page } from '@playwright/test';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { buildAllIfNeeded, MAIN } from '../helpers/build-cli.js';
import { invoicePdf } from '../helpers/pdf-fixtures.js';

export const SCREENS = resolve(import.meta.dirname, '../../test-results/screens');

export type ScreenName = 'Activity' | 'Hot folders' | 'Runs' | 'Results' | 'Connection';

export interface ServedUi {
  /** The "ui listening on" address, which signs the browser in. */
  url: string;
  /** What serve printed, and the page's errors: a spec checks it holds no "page error". */
  log: string;
  stop(): void;
  /** SIGKILL: gone at once, as a computer that dies. */
  kill(): void;
}

/**
 * `docsync serve` on a free port with its data in `root`. No service is configured, so it starts
 * its own built-in sandbox and is signed in to it; unless `env` names one (DOCSYNC_URL and
 * DOCSYNC_TOKEN). `args` go to serve (`--agent-name NAME`).
 */
export async function serveUi(root: string, o: { env?: Record<string, string>; args?: string[] } = {}): Promise<ServedUi> {
  const proc: ChildProcessWithoutNullStreams = spawn(process.execPath, [MAIN, 'serve', '--port', '0', ...(o.args ?? [])], {
    env: { PATH: process.env.PATH ?? '', HOME: join(root, 'user'), DOCSYNC_HOME: join(root, 'home'), LANG: 'C.UTF-8', ...o.env },
  });
  const served: ServedUi = { url: '', log: '', stop: () => proc.kill('SIGTERM'), kill: () => proc.kill('SIGKILL') };
  proc.stderr.on('data', (d: Buffer) => (served.log += d.toString()));
  served.url = await new Promise<string>((ok, fail) => {
    const rl = createInterface({ input: proc.stdout });
    rl.on('line', (l) => {
      served.log += `${l}\n`;
      const m = /^ui listening on (\S+)$/.exec(l);
      if (m) ok(m[1] as string);
    });
    proc.once('close', (code) => fail(new Error(`serve exited with ${code}: ${served.log}`)));
  });
  return served;
}

/** A page whose uncaught errors end up in the serve log (in a context of its own, which axe-core's Playwright builder needs). */
export async function openPage(browser: Browser, served: ServedUi): Promise<Page> {
  const page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  page.on('pageerror', (e) => {
    served.log += `page error: ${e.message}\n`;
  });
  return page;
}

export interface UiSession {
  /** The temp folder holding the data home and `inbox`. */
  root: string;
  /** An empty folder under root, for a hot folder. */
  inbox: string;
  served: ServedUi;
  page: Page;
  /** Stops serve and removes root. */
  close(): Promise<void>;
}

/** A spec's set-up: the built UI served from a fresh temp folder (`prefix` names it), and a page on it. */
export async function startUi(browser: Browser, prefix: string): Promise<UiSession> {
  await buildAllIfNeeded();
  await mkdir(SCREENS, { recursive: true });
  const root = await mkdtemp(join(tmpdir(), prefix));
  const inbox = join(root, 'inbox');
  await mkdir(inbox);
  const served = await serveUi(root);
  const page = await openPage(browser, served);
  return {
    root, inbox, served, page,
    async close() {
      served.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export const invoice = (n: number): Promise<Buffer> =>
  invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: `$${n}.00`, vendor: `Vendor ${n}` });

/** Opens a screen from the sidebar, as a person would. */
export async function goTo(page: Page, name: ScreenName): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name }).click();
}

/** Fills the open folder form for a test: the sandbox's invoice deployment, batches closed and files stable within a second. */
export async function fillQuickFolder(page: Page, folder: string): Promise<void> {
  await page.getByLabel('Folder to watch').fill(folder);
  await page.getByLabel('Deployment id').fill('sandbox-invoices');
  await page.getByLabel('Wait after the last file (seconds)').fill('0.3');
  await page.getByLabel('Longest wait (seconds)').fill('0.3');
  await page.getByLabel('Stable after (seconds)').fill('0.2');
}

/** Opens the folder form's share section and fills it (lease and heartbeat in seconds). */
export async function fillShare(page: Page, o: { name: string; leaseS?: number; heartbeatS?: number }): Promise<void> {
  await page.getByLabel("Share this folder's files with other DocSync agents watching it").check();
  await page.getByLabel('Share name').fill(o.name);
  if (o.leaseS !== undefined) await page.getByLabel("Take over another agent's files after (seconds) without a sign of life").fill(String(o.leaseS));
  if (o.heartbeatS !== undefined) await page.getByLabel('Give a sign of life every (seconds)').fill(String(o.heartbeatS));
}

/** Moderate axe rules that fail the check too: the ones issue 12 lists. */
const ALSO_FAILING = new Set(['region', 'heading-order']);

/**
 * axe-core on the page as it is, in the light and the dark scheme; a soft failure on serious or
 * critical violations (and ALSO_FAILING), listing each with its rule, elements and summary.
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // label-content-name-mismatch is experimental in axe (off unless asked): issue 12 asks for it.
    const { violations } = await new AxeBuilder({ page }).options({ rules: { 'label-content-name-mismatch': { enabled: true } } }).analyze();
    for (const v of violations) {
      if (v.impact !== 'serious' && v.impact !== 'critical' && !ALSO_FAILING.has(v.id)) continue;
      for (const n of v.nodes) found.push(`${colorScheme}: ${v.id} (${v.impact}) ${n.target.join(' ')}\n    ${(n.failureSummary ?? v.help).replace(/\n/g, '\n    ')}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  expect.soft(found, `axe-core on ${what}:\n${found.join('\n')}`).toEqual([]);
}

/** test-results/screens/<name>.png and <name>-dark.png; the page is left in the light scheme. */
export async function shootBoth(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(SCREENS, `${name}.png`), fullPage: false });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SCREENS, `${name}-dark.png`), fullPage: false });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Drops files onto the window as a person would (DOM types are not part of the Node test project, hence a string). */
export async function dropOnWindow(page: Page, files: { name: string; bytes: Buffer }[]): Promise<void> {
  const list = JSON.stringify(files.map((f) => ({ name: f.name, bytes: [...f.bytes] })));
  await page.evaluate(`(() => {
    const dt = new DataTransfer();
    for (const f of ${list}) dt.items.add(new File([new Uint8Array(f.bytes)], f.name, { type: 'application/pdf' }));
    const target = document.querySelector('main') ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  })()`);
}

/**
 * Text of the open screen that is cut without saying so: a leaf element whose text overflows it must
 * end in an ellipsis and give its whole text on hover (a title on it or an ancestor). DOM code runs in
 * the page, as a string (DOM types are not part of the Node test project).
 */
export const silentlyCut = (page: Page): Promise<string[]> =>
  page.evaluate(`[...document.querySelectorAll('main *, header *')].filter((el) => {
    // Screen-reader-only text (1 px boxes) is not on screen to be cut.
    if (el.children.length > 0 || !el.textContent.trim() || el.clientWidth <= 1 || el.scrollWidth <= el.clientWidth + 1) return false;
    const s = getComputedStyle(el);
    if (s.overflowX === 'visible' || s.display === 'inline') return false;
    return !(s.textOverflow === 'ellipsis' && el.closest('[title]'));
  }).map((el) => el.tagName.toLowerCase() + '.' + el.className + ': ' + el.textContent.trim().slice(0, 60))`);
