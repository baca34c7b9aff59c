// The Results screen on a laptop screen (1280x800), in Debian's Chromium against a real
// `docsync serve` and its built-in sandbox (issue 12, "Results that fit on a laptop screen"). Each
// check is a measured fact of the page as drawn: the source page fills its pane and its zoom label
// is its real size, the panes resize from the keyboard and stay so, nothing of the file names, the
// page toolbar or the verdicts is cut or wrapped, runs are named by date, time and deployment, and
// a case field that is not valid says why.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { PAGE_WIDTH, corruptPdf } from '../helpers/pdf-fixtures.js';
import { dropOnWindow, goTo, invoice, startUi, shootBoth, type ServedUi, type UiSession } from './served-ui.js';

test.describe.configure({ mode: 'serial' });

/** An ordinary file name, long enough to have been cut in the old tree. */
const NAME = 'acme-invoice-2026-05.pdf';
const BAD = 'scan-smudged.pdf';

let served: ServedUi;
let ui: UiSession | undefined;
let page: Page;

const source = (): Locator => page.getByRole('region', { name: 'Source page' });
const canvasWidth = async (): Promise<number> => (await source().locator('canvas').boundingBox())?.width ?? 0;
const zoomLabel = async (): Promise<number> => Number((await source().locator('output').textContent())?.replace(/\s*%$/, ''));
/** The real scale of the drawn page, in percent: 100 % draws a point as 96/72 CSS px. */
const realPercent = async (): Promise<number> => Math.round(((await canvasWidth()) / (PAGE_WIDTH * (96 / 72))) * 100);

/**
 * How many lines an element's text is laid out on (a wrapped text has one client rect per line).
 * DOM globals are not part of the Node test project: they are reached through the element.
 */
async function lines(l: Locator): Promise<number> {
  return l.evaluate((el) => {
    const r = el.ownerDocument.createRange();
    r.selectNodeContents(el);
    return new Set([...r.getClientRects()].filter((c) => c.width > 0).map((c) => Math.round(c.top))).size;
  });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  ui = await startUi(browser, 'docsync-layout-');
  ({ served, page } = ui);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(served.url);
  // One run of two files: a readable invoice and an unreadable scan (so a case field fails validation).
  await dropOnWindow(page, [
    { name: NAME, bytes: await invoice(7) },
    { name: BAD, bytes: await corruptPdf() },
  ]);
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: /sandbox-invoices/ }).first().click();
  await dialog.getByRole('button', { name: 'Upload' }).click();
  const queue = page.getByRole('grid', { name: 'Queue' });
  await expect(queue.getByRole('row').filter({ hasText: NAME }).getByText(/^Done$/)).toBeVisible({ timeout: 60_000 });
  await expect(queue.getByRole('row').filter({ hasText: BAD }).getByText(/^(Done|Failed)$/)).toBeVisible({ timeout: 60_000 });
  await goTo(page, 'Runs');
  await page.getByRole('row', { name: /^Run .*Press Enter to open its results/ }).first().click();
  await page.getByRole('tree').getByText(NAME).click();
  await expect(source().locator('canvas')).toBeVisible();
});

test.afterAll(async () => {
  await ui?.close();
});

test('the source page fits its pane\'s width by default, readable, and its zoom label is its real size', async () => {
  const scroller = source().locator('canvas').locator('xpath=ancestor::div[contains(@class, "scroller")]');
  const room = await scroller.evaluate((el) => {
    const style = el.ownerDocument.defaultView!.getComputedStyle(el);
    return el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  });
  await expect.poll(canvasWidth).toBeGreaterThanOrEqual(room - 1);
  expect(await canvasWidth()).toBeGreaterThanOrEqual(390);
  await expect(source().getByRole('button', { name: 'Fit width' })).toHaveAttribute('aria-pressed', 'true');
  expect(await zoomLabel()).toBe(await realPercent());
  await shootBoth(page, 'results-layout-fit');

  // Each step up says the size it draws; at 100 % a point is drawn as 96/72 CSS px.
  const fit = await zoomLabel();
  await source().getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(zoomLabel).toBeGreaterThan(fit);
  await expect.poll(realPercent).toBe(await zoomLabel());
  while ((await zoomLabel()) < 100) await source().getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(zoomLabel).toBe(100);
  await expect.poll(realPercent).toBe(100);
  await shootBoth(page, 'results-layout-100');
  await expect(source().getByRole('button', { name: 'Fit width' })).toHaveAttribute('aria-pressed', 'false');
  await source().getByRole('button', { name: 'Fit width' }).click();
  await expect.poll(canvasWidth).toBeGreaterThanOrEqual(room - 1);
  expect(await zoomLabel()).toBe(await realPercent());
});

test('the panes resize with the keyboard and the mouse, and stay so after a reload', async () => {
  const handle = page.getByRole('separator', { name: 'Resize the source page' });
  const before = Number(await handle.getAttribute('aria-valuenow'));
  const drawn = await canvasWidth();
  await handle.focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(handle).toHaveAttribute('aria-valuenow', String(before + 32));
  await expect.poll(canvasWidth).toBeGreaterThan(drawn + 20);
  expect(await zoomLabel()).toBe(await realPercent());

  const tree = page.getByRole('separator', { name: 'Resize the results list' });
  const treeBefore = Number(await tree.getAttribute('aria-valuenow'));
  await tree.focus();
  await page.keyboard.press('ArrowLeft');
  await expect(tree).toHaveAttribute('aria-valuenow', String(treeBefore - 16));

  // Dragged with the mouse too; Shift takes four steps at once.
  const grip = (await tree.boundingBox())!;
  await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
  await page.mouse.down();
  await page.mouse.move(grip.x + grip.width / 2 - 32, grip.y + grip.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect(tree).toHaveAttribute('aria-valuenow', String(treeBefore - 48));
  await tree.focus();
  await page.keyboard.press('Shift+ArrowRight');
  await expect(tree).toHaveAttribute('aria-valuenow', String(treeBefore + 16));
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(tree).toHaveAttribute('aria-valuenow', String(treeBefore - 16));

  await page.reload();
  await goTo(page, 'Results');
  await expect(page.getByRole('separator', { name: 'Resize the source page' })).toHaveAttribute('aria-valuenow', String(before + 32));
  await expect(page.getByRole('separator', { name: 'Resize the results list' })).toHaveAttribute('aria-valuenow', String(treeBefore - 16));
  // Back to where it was, for the checks below.
  await page.getByRole('separator', { name: 'Resize the source page' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.getByRole('separator', { name: 'Resize the results list' }).focus();
  await page.keyboard.press('ArrowRight');
  await goTo(page, 'Runs');
  await page.getByRole('row', { name: /^Run .*Press Enter to open its results/ }).first().click();
  await page.getByRole('tree').getByText(NAME).click();
  await expect(source().locator('canvas')).toBeVisible();
});

test('runs are named by date, time and deployment; "1 file", "2 files", never "file(s)"', async () => {
  const today = await page.evaluate(() => new Date().toLocaleDateString(undefined, { month: 'short', day: 'numeric' }));
  const run = page.getByRole('treeitem', { level: 2 }).first();
  await expect(run).toContainText(today);
  await expect(run).toContainText('sandbox-invoices');
  await expect(run).toContainText('2 files');
  await expect(page.getByRole('region', { name: 'Run' })).toContainText(today);
  await expect(page.getByRole('region', { name: 'Results' })).not.toContainText('(s)');
});

test('nothing is cut or wrapped: file names, the page toolbar, "✓ valid"', async () => {
  for (const name of [NAME, BAD]) {
    const label = page.getByRole('tree').locator('.label', { hasText: name });
    const fits = await label.evaluate((el) => el.scrollWidth <= el.clientWidth);
    expect(fits, `${name} is shown whole in the tree`).toBe(true);
  }
  await expect(source().getByText('Page 1 of 1')).toBeVisible();
  expect(await lines(source().getByText('Page 1 of 1'))).toBe(1);
  expect(await lines(source().getByText('Source page', { exact: true }))).toBe(1);
  const valid = page.getByRole('grid', { name: 'Extracted fields' }).getByText('✓ valid');
  await expect(valid.first()).toBeVisible();
  for (const v of await valid.all()) expect(await lines(v)).toBe(1);
});

test('a case field that is not valid says why (its validations.failures)', async () => {
  await page.getByText(/^Case fields/).click();
  const row = page.getByRole('table', { name: 'Case fields' }).getByRole('row').filter({ hasText: 'document_count' });
  await expect(row).toContainText('not valid');
  // The sandbox's failure for an unreadable document: "record <index>: <its error>".
  await expect(row.getByRole('list', { name: 'Why document_count is not valid' })).toContainText(/record \d+: \S/);
  expect(await lines(page.getByRole('table', { name: 'Case fields' }).getByText('✓ valid').first())).toBe(1);
  await shootBoth(page, 'results-layout-case-fields');
  expect(served.log).not.toMatch(/page error/);
});
