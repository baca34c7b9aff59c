// The whole UI in Debian's Chromium against a real `docsync serve` (real engine, real SQLite) and a
// real sandbox over HTTP: sign in, add a hot folder, drop PDFs into it on disk, watch the queue,
// open results (the source page drawn by pdf.js), search, export, go offline and still browse and
// search, retry a failed file, drag files onto the window, and draw a field's box on the right page of a
// multi-page PDF (page numbers as the service means them). Screenshots of every screen, light and
// dark, are kept in test-results/screens/ (look at them).
import { expect, test, type Page } from '@playwright/test';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningSandbox } from '../../sandbox/index.js';
import { buildAllIfNeeded } from '../helpers/build-cli.js';
import { INVOICE_LAYOUT, PAGE_HEIGHT, PAGE_MARKS, PAGE_WIDTH, corruptPdf, coverInvoiceReceiptPdf } from '../helpers/pdf-fixtures.js';
import { sandbox } from '../helpers/sandbox.js';
import { SCREENS, dropOnWindow as dropOn, fillQuickFolder, goTo, invoice, openPage, serveUi, shootBoth, type ScreenName, type ServedUi } from './served-ui.js';

test.describe.configure({ mode: 'serial' });

let root: string;
let inbox: string;
let sb: RunningSandbox;
let sbPort: number;
let served: ServedUi;
let openUrl: string;
let page: Page;

const shoot = (name: string): Promise<void> => shootBoth(page, name);

/** The Activity queue and the Results search hits, by their roles and names. */
const queue = () => page.getByRole('grid', { name: 'Queue' });
const searchHits = () => page.getByRole('listbox', { name: 'Search results' });

const screen = (name: ScreenName): Promise<void> => goTo(page, name);
const dropOnWindow = (files: { name: string; bytes: Buffer }[]): Promise<void> => dropOn(page, files);

/**
 * The grey level (0 black .. 255 white) the source page's canvas shows at a point given in PDF
 * points (origin bottom-left), averaged over a few pixels: tells which page of the file is drawn.
 */
async function greyAt(xPt: number, yPt: number): Promise<number> {
  return page.evaluate(`(() => {
    const c = document.querySelector('[aria-label="Source page"] canvas');
    if (!c || !c.width) return -1;
    const x = Math.round(${xPt} / ${PAGE_WIDTH} * c.width), y = Math.round((1 - ${yPt} / ${PAGE_HEIGHT}) * c.height);
    const d = c.getContext('2d').getImageData(x - 2, y - 2, 5, 5).data;
    let sum = 0;
    for (let i = 0; i < d.length; i += 4) sum += (d[i] + d[i + 1] + d[i + 2]) / 3;
    return Math.round(sum / (d.length / 4));
  })()`);
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  await buildAllIfNeeded();
  await mkdir(SCREENS, { recursive: true });
  root = await mkdtemp(join(tmpdir(), 'docsync-e2e-'));
  inbox = join(root, 'inbox');
  await mkdir(inbox);
  sb = await sandbox({ dataDir: join(root, 'service') });
  sbPort = Number(new URL(sb.url).port);
  // No service configured: serve starts its own built-in sandbox; the test signs in to another one.
  served = await serveUi(root);
  openUrl = served.url;
  page = await openPage(browser, served);
});

test.afterAll(async () => {
  served?.stop();
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
  await expect(page.getByText(/no keychain is available/i).first()).toBeVisible();
  // Said once: the no-keychain box (its technical reason behind "Why"), not again in an error box under it.
  await expect(page.getByRole('alert').filter({ hasText: /keychain/i })).toHaveCount(1);
  await shoot('03a-connection-no-keychain');
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
  await fillQuickFolder(page, inbox);
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
  // The reason, short enough for the row; the sentence and the service's words per field are behind it.
  await expect(queue().getByText(/^Could not read: a damaged PDF \((\d+) of \1 fields\)$/)).toBeVisible();
  // Partial failure is not success: the run's notice says how many failed, and stays (an error).
  const notices = page.getByRole('region', { name: 'Notifications' });
  await expect(notices.getByText(/ on sandbox-invoices: \d of \d done, 1 failed\. Activity shows why/)).toBeVisible();
  await shoot('07-activity-done');
  await queue().getByRole('button', { name: 'Show details of smudged.pdf' }).click();
  await expect(queue().getByText(/^The service could not read this file: a damaged PDF \((\d+) of \1 fields failed\)/)).toBeVisible();
  await queue().getByText('Details', { exact: true }).click();
  await expect(queue().getByText(/^invoice_number: file is not a readable PDF/)).toBeVisible();
  await shoot('07a-activity-failed-details');
  await queue().getByRole('button', { name: 'Hide details of smudged.pdf' }).click();
});

test("the header's failed count opens Activity showing only the failed files", async () => {
  await screen('Runs');
  await page.getByRole('banner').getByRole('button', { name: '1 failed' }).click();
  await expect(page.getByRole('heading', { name: 'Activity' })).toBeVisible();
  await expect(page.getByRole('group', { name: 'Show files in these states' }).getByRole('button', { name: /^Failed/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(queue().getByText('smudged.pdf')).toBeVisible();
  await expect(queue().getByText('inv-1.pdf')).toHaveCount(0);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(queue().getByText('inv-1.pdf')).toBeVisible();
});

test('runs: the run is listed with its failed file; its results open', async () => {
  await screen('Runs');
  await expect(page.getByText(/\d of \d done, 1 failed/).first()).toBeVisible();
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
  // A hit names its run as people know it (when it was made), not by the service's id.
  await expect(hits.getByRole('option').first()).toContainText(/Run of \w{3} \d{1,2}, \d{1,2}:\d{2}/);
  await shoot('10-search');
  await box.fill('');
});

test('export a run as CSV and JSON', async () => {
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(csv.suggestedFilename()).toMatch(/\.csv$/);
  const text = await readFile(await csv.path(), 'utf8');
  expect(text.split('\r\n')[0]).toBe('scope,file,document,class,pages,field,value,type,confidence,valid,error');
  expect(text).toMatch(/,invoice_number,INV-\d,/);
  // The run's case fields follow its documents.
  expect(text).toMatch(/^case,,,,,invoice_count,\d+,/m);
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
  expect(JSON.parse(await readFile(await json.path(), 'utf8'))).toEqual({
    files: expect.arrayContaining([expect.objectContaining({ file: expect.stringMatching(/\.pdf$/) })]),
    case_fields: expect.arrayContaining([expect.objectContaining({ name: 'invoice_count' })]),
  });
});

test('export a run by document, and several runs at once, for spreadsheets', async () => {
  const [wide] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export by document (CSV)' }).click()]);
  const rows = (await readFile(await wide.path(), 'utf8')).trimEnd().split('\r\n').map((l) => l.split(','));
  expect(rows[0]!.slice(0, 4)).toEqual(['file', 'document', 'class', 'pages']);
  expect(rows[0]).toContain('invoice_number');
  expect(rows[0]).toContain('case: invoice_count');
  // One row per document, a cell for every column.
  expect(rows.slice(1).every((r) => r.length === rows[0]!.length)).toBe(true);
  expect(rows.slice(1).map((r) => r[rows[0]!.indexOf('invoice_number')])).toContainEqual(expect.stringMatching(/^INV-\d$/));

  await page.getByRole('button', { name: 'Export several runs…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export several runs' });
  await dialog.getByLabel('Runs started from').fill('2099-01-01');
  await dialog.getByRole('button', { name: 'Export', exact: true }).click();
  await expect(dialog.getByRole('alert')).toHaveText(/No stored results match/);
  await shoot('10b-export-runs');
  await dialog.getByLabel('Runs started from').fill('');
  await expect(dialog.getByRole('alert')).toBeHidden();
  const [several] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export', exact: true }).click()]);
  expect(several.suggestedFilename()).toMatch(/^results.*\.csv$/);
  const text = await readFile(await several.path(), 'utf8');
  expect(text.split('\r\n')[0]).toMatch(/^run,file,document,class,pages,.*invoice_number/);
  await expect(dialog).toBeHidden();
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
  // Its problem is resolved: the run's error notice went by itself; the history still has it.
  await expect(page.getByRole('region', { name: 'Notifications' }).getByText(/1 failed\. Activity shows why/)).toHaveCount(0);
  await page.getByRole('button', { name: /^Recent notices/ }).click();
  await expect(page.getByRole('region', { name: 'Recent notices' }).getByText(/1 failed\. Activity shows why/)).toBeVisible();
  await shoot('12a-notice-history');
  await page.getByRole('button', { name: /^Recent notices/ }).click();
  await shoot('12-activity-retried');
});

test('drag and drop files onto the window while paused: the file says why it waits; resumed, done', async () => {
  await page.getByRole('button', { name: 'Pause all' }).click();
  await expect(page.getByText('All paused')).toBeVisible();
  await dropOnWindow([{ name: 'dropped-5.pdf', bytes: await invoice(5) }]);
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /sandbox-invoices/ }).first().click();
  await shoot('13-drop-dialog');
  await dialog.getByRole('button', { name: 'Upload' }).click();
  await expect(queue().getByText('dropped-5.pdf')).toBeVisible();
  await expect(queue().getByRole('row').filter({ hasText: 'dropped-5.pdf' }).getByText('paused: goes on when you resume')).toBeVisible();
  await shoot('13a-activity-paused-file');
  await page.getByRole('button', { name: 'Resume all' }).click();
  await expect(queue().getByText(/^Done$/)).toHaveCount(5, { timeout: 60_000 });
  expect(served.log).not.toMatch(/page error/);
});

test('a copy of a processed file is skipped with its reason, in neutral words, not as an error', async () => {
  await writeFile(join(inbox, 'copy-of-inv-1.pdf'), await invoice(1));
  const row = queue().getByRole('row').filter({ hasText: 'copy-of-inv-1.pdf' });
  await expect(row.getByText(/^Skipped$/)).toBeVisible({ timeout: 30_000 });
  const reason = row.getByText('Already processed: same content as inv-1.pdf', { exact: true });
  await expect(reason).toBeVisible();
  await expect(reason).not.toHaveClass(/error/);
  await shoot('13b-activity-skipped-duplicate');
});

test('a field on page 2 of a three-page PDF: its box is drawn on page 2, where the value is; pages count from 1', async () => {
  // Runs on its own too (-g): then the app is signed in to its built-in sandbox, which has the same deployments.
  if (!page.url().startsWith('http')) await page.goto(openUrl);
  // Cover letter (page 1, a dark block), invoice (page 2), receipt (page 3, a grey block where the invoice has none).
  await screen('Activity');
  await dropOnWindow([{ name: 'packet.pdf', bytes: await coverInvoiceReceiptPdf() }]);
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /sandbox-invoices/ }).first().click();
  await dialog.getByRole('button', { name: 'Upload' }).click();
  await expect(queue().getByRole('row').filter({ hasText: 'packet.pdf' }).getByText(/^Done$/)).toBeVisible({ timeout: 60_000 });

  // The newest run (the packet's) is first on the Runs screen; it opens in Results.
  await screen('Runs');
  await page.getByRole('row', { name: /^Run .*Press Enter to open its results/ }).first().click();
  await page.getByRole('tree').getByText('packet.pdf').first().click();
  // Labels as a person counts pages: the service's page_numbers [1], [2], [3] shown as they are.
  const tabs = page.getByRole('tablist', { name: 'Documents in this file' });
  await expect(tabs.getByRole('tab')).toHaveText([/^Other\s+page 1$/, /^Invoice\s+page 2$/, /^Receipt\s+page 3$/]);
  await expect(page.getByRole('tree').getByText('p. 2 · 7 fields')).toBeVisible();

  await tabs.getByRole('tab', { name: /Invoice/ }).click();
  const fields = page.getByRole('grid', { name: 'Extracted fields' });
  await fields.getByText('500.00', { exact: true }).click();
  const source = page.getByRole('region', { name: 'Source page' });
  await expect(source.getByText('Page 2 of 3')).toBeVisible();
  const pageImage = source.getByRole('img', { name: 'Page 2 of packet.pdf, with the source of total_amount marked' });
  await expect(pageImage).toBeVisible();
  const box = source.getByRole('button', { name: 'Source of total_amount' });
  await expect(box).toBeVisible();
  // The canvas shows page 2: white where page 1 has its dark block and page 3 its grey one.
  const mark = { x: PAGE_MARKS.x + PAGE_MARKS.width / 2, y: PAGE_MARKS.y + PAGE_MARKS.height / 2 };
  await expect.poll(() => greyAt(mark.x, mark.y)).toBeGreaterThan(245);
  // ... and "INVOICE", drawn in black at the top of page 2, is there.
  await expect.poll(() => greyAt(INVOICE_LAYOUT.title.x + 4, INVOICE_LAYOUT.title.y + 6)).toBeLessThan(250);

  // The box sits where the total is drawn on page 2 (x of the value, just above its baseline), in page points.
  const canvasBox = (await pageImage.locator('canvas').boundingBox())!;
  const drawn = (await box.boundingBox())!;
  const scale = canvasBox.width / PAGE_WIDTH;
  const left = (drawn.x - canvasBox.x) / scale;
  const top = (drawn.y - canvasBox.y) / scale;
  const bottom = (drawn.y + drawn.height - canvasBox.y) / scale;
  const baselineFromTop = PAGE_HEIGHT - INVOICE_LAYOUT.amountDue.y;
  expect(Math.abs(left - INVOICE_LAYOUT.amountDue.valueX)).toBeLessThan(6);
  expect(top).toBeGreaterThan(baselineFromTop - 20);
  expect(top).toBeLessThan(baselineFromTop);
  expect(bottom).toBeGreaterThan(baselineFromTop - 6);
  expect(bottom).toBeLessThan(baselineFromTop + 10);

  await page.setViewportSize({ width: 1280, height: 800 });
  await box.scrollIntoViewIfNeeded();
  await shoot('14-results-page-2');

  // The receipt: page 3, the grey block; the cover: page 1, the dark block.
  await tabs.getByRole('tab', { name: /Receipt/ }).click();
  await fields.getByText('Corner Cafe', { exact: true }).click();
  await expect(source.getByText('Page 3 of 3')).toBeVisible();
  await expect(source.getByRole('button', { name: 'Source of merchant' })).toBeVisible();
  await expect.poll(() => greyAt(mark.x, mark.y)).toBeGreaterThan(120);
  await expect.poll(() => greyAt(mark.x, mark.y)).toBeLessThan(160);
  await tabs.getByRole('tab', { name: /Other/ }).click();
  await expect(source.getByText('Page 1 of 3')).toBeVisible();
  await expect.poll(() => greyAt(mark.x, mark.y)).toBeLessThan(40);
  expect(served.log).not.toMatch(/page error/);
});
