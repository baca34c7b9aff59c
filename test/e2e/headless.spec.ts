// The whole UI in Debian's Chromium against a real `docsync serve` (real engine, real SQLite) and a
// real sandbox over HTTP: sign in, add a hot folder, drop PDFs into it on disk, watch the queue,
// open results (the source page drawn by pdf.js), search, export, go offline and still browse and
// search, retry a failed file, drag files onto the window. Screenshots of every screen, light and
// dark, are kept in test-results/screens/ (look at them).
import { expect, test, type Page } from '@playwright/test';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunningSandbox } from '../../sandbox/index.js';
import { buildAllIfNeeded, MAIN } from '../helpers/build-cli.js';
import { corruptPdf, invoicePdf } from '../helpers/pdf-fixtures.js';
import { sandbox } from '../helpers/sandbox.js';

const SCREENS = resolve(import.meta.dirname, '../../test-results/screens');
test.describe.configure({ mode: 'serial' });

let root: string;
let home: string;
let inbox: string;
let sb: RunningSandbox;
let sbPort: number;
let serve: ChildProcessWithoutNullStreams;
let serveLog = '';
let openUrl: string;
let page: Page;

const invoice = (n: number): Promise<Buffer> =>
  invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: `$${n}.00`, vendor: `Vendor ${n}` });

async function shoot(name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(SCREENS, `${name}.png`), fullPage: false });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SCREENS, `${name}-dark.png`), fullPage: false });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The Activity queue and the Results search hits, by their roles and names. */
const queue = () => page.getByRole('grid', { name: 'Queue' });
const searchHits = () => page.getByRole('listbox', { name: 'Search results' });

async function screen(name: 'Activity' | 'Hot folders' | 'Runs' | 'Results' | 'Connection'): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name }).click();
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  await buildAllIfNeeded();
  await mkdir(SCREENS, { recursive: true });
  root = await mkdtemp(join(tmpdir(), 'docsync-e2e-'));
  home = join(root, 'home');
  inbox = join(root, 'inbox');
  await mkdir(inbox);
  sb = await sandbox({ dataDir: join(root, 'service') });
  sbPort = Number(new URL(sb.url).port);
  // No service configured: serve starts its own built-in sandbox; the test signs in to another one.
  serve = spawn(process.execPath, [MAIN, 'serve', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', HOME: join(root, 'user'), DOCSYNC_HOME: home, LANG: 'C.UTF-8' },
  });
  serve.stderr.on('data', (d: Buffer) => (serveLog += d.toString()));
  openUrl = await new Promise<string>((ok, fail) => {
    const rl = createInterface({ input: serve.stdout });
    rl.on('line', (l) => {
      serveLog += `${l}\n`;
      const m = /^ui listening on (\S+)$/.exec(l);
      if (m) ok(m[1] as string);
    });
    serve.once('close', (code) => fail(new Error(`serve exited with ${code}: ${serveLog}`)));
  });
  page = await browser.newPage({ acceptDownloads: true });
  page.on('pageerror', (e) => {
    serveLog += `page error: ${e.message}\n`;
  });
});

test.afterAll(async () => {
  serve?.kill('SIGTERM');
  await sb?.close().catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

test('the address signs the browser in and leaves the URL bar clean', async () => {
  await page.goto(openUrl);
  await expect(page).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  await expect(page.getByRole('heading', { name: 'Activity' })).toBeVisible();
  await shoot('01-activity-empty');
});

test('connection: sign out of the built-in sandbox, sign in to a service (session only without a keychain)', async () => {
  await screen('Connection');
  await expect(page.getByRole('heading', { name: /Signed in as the built-in sandbox/ })).toBeVisible();
  await shoot('02-connection-sandbox');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to your service' })).toBeVisible();
  await page.getByLabel(/Service URL/i).fill(sb.url);
  await page.getByLabel(/^Token/i).fill('member-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // No D-Bus here: the keychain is unavailable; the app says so and offers a session-only token.
  await expect(page.getByText(/no keychain available/i).first()).toBeVisible();
  await page.getByLabel(/session only/i).check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: `Signed in as 127.0.0.1:${sbPort}` })).toBeVisible();
  await expect(page.getByText(/online/i).first()).toBeVisible();
  await shoot('03-connection-signed-in');
});

test('hot folders: add one with quick settings', async () => {
  await screen('Hot folders');
  await shoot('04-folders-empty');
  await page.getByRole('button', { name: 'Add folder' }).first().click();
  await page.getByLabel('Folder to watch').fill(inbox);
  await page.getByLabel('Deployment id').fill('sandbox-invoices');
  await page.getByLabel('Quiet time (seconds)').fill('0.3');
  await page.getByLabel('Stable after (seconds)').fill('0.2');
  await shoot('05-folder-form');
  await page.getByRole('button', { name: 'Add folder' }).last().click();
  await expect(page.getByRole('heading', { name: inbox })).toBeVisible();
  await shoot('06-folders');
});

test('drop PDFs into the folder on disk: the queue shows them go through to Done, the bad one Failed', async () => {
  await screen('Activity');
  for (const n of [1, 2, 3]) await writeFile(join(inbox, `inv-${n}.pdf`), await invoice(n));
  await writeFile(join(inbox, 'smudged.pdf'), await corruptPdf());
  await expect(queue().getByText('inv-3.pdf')).toBeVisible();
  await expect(queue().getByText(/^Done$/)).toHaveCount(3, { timeout: 60_000 });
  await expect(queue().getByText(/^Failed$/)).toHaveCount(1);
  await shoot('07-activity-done');
});

test('runs: the run is listed complete; its results open', async () => {
  await screen('Runs');
  await expect(page.getByText(/complete/i).first()).toBeVisible();
  await shoot('08-runs');
  await page.getByRole('row', { name: /^Run .*Press Enter to open its results/ }).first().click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeAttached();
});

test('results: fields of a document with the source page and the field box drawn', async () => {
  await screen('Results');
  await page.getByText('inv-2.pdf').first().click();
  const fields = page.getByRole('grid', { name: 'Extracted fields' });
  await expect(fields.getByText('INV-2')).toBeVisible();
  await fields.getByText('INV-2').click();
  const source = page.getByRole('region', { name: 'Source page' });
  await expect(source.locator('canvas')).toBeVisible();
  await expect(page.getByLabel('Source of invoice_number').first()).toBeVisible();
  await shoot('09-results');
});

test('search finds a value across everything and opens it', async () => {
  const box = page.getByPlaceholder(/Search every result/);
  await box.fill('INV-3');
  const hits = searchHits();
  await expect(hits.getByText(/INV-3/).first()).toBeVisible();
  await shoot('10-search');
  await box.fill('');
});

test('export a run as CSV and JSON', async () => {
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(csv.suggestedFilename()).toMatch(/\.csv$/);
  const text = await readFile(await csv.path(), 'utf8');
  expect(text.split('\r\n')[0]).toBe('file,document,class,pages,field,value,type,confidence,valid,error');
  expect(text).toMatch(/,invoice_number,INV-\d,/);
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
  expect(JSON.parse(await readFile(await json.path(), 'utf8'))).toEqual(expect.arrayContaining([expect.objectContaining({ file: expect.stringMatching(/\.pdf$/) })]));
});

test('offline: the service stops; the header says so; results stay browsable and searchable', async () => {
  await sb.close();
  await expect(page.getByText(/offline/i).first()).toBeVisible({ timeout: 40_000 });
  await screen('Results');
  await page.getByText('inv-1.pdf').first().click();
  await expect(page.getByText('INV-1').first()).toBeVisible();
  await page.getByPlaceholder(/Search every result/).fill('Vendor');
  await expect(searchHits().getByText(/Vendor/).first()).toBeVisible();
  await shoot('11-offline-results');
  await page.getByPlaceholder(/Search every result/).fill('');
});

test('retry a failed file once the service is back and the file is fixed', async () => {
  sb = await sandbox({ dataDir: join(root, 'service'), port: sbPort });
  await expect(page.getByText(/online/i).first()).toBeVisible({ timeout: 40_000 });
  await writeFile(join(inbox, 'smudged.pdf'), await invoice(4));
  await screen('Activity');
  await page.getByRole('button', { name: 'Retry smudged.pdf' }).click();
  await expect(queue().getByText(/^Done$/)).toHaveCount(4, { timeout: 60_000 });
  await shoot('12-activity-retried');
});

test('drag and drop files onto the window: choose the deployment, upload, done', async () => {
  const bytes = [...(await invoice(5))];
  // Runs in the page (DOM types are not part of the Node test project, hence a string).
  await page.evaluate(`(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(${JSON.stringify(bytes)})], 'dropped-5.pdf', { type: 'application/pdf' }));
    const target = document.querySelector('main') ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  })()`);
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /sandbox-invoices/ }).first().click();
  await shoot('13-drop-dialog');
  await dialog.getByRole('button', { name: 'Upload' }).click();
  await expect(queue().getByText('dropped-5.pdf')).toBeVisible();
  await expect(queue().getByText(/^Done$/)).toHaveCount(5, { timeout: 60_000 });
  expect(serveLog).not.toMatch(/page error/);
});
