// The Results screen on a laptop screen (1280x800), in Debian's Chromium against a real
// `docsync serve` and its built-in sandbox (issue 12, "Results that fit on a laptop screen"). Each
// check is a measured fact of the page as drawn: the source page fills its pane and its zoom label
// is its real size, the panes resize from the keyboard and stay so, nothing of the file names, the
// page toolbar or the verdicts is cut or wrapped, runs are named by date, time and deployment, and
// a case field that is not valid says why.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { PAGE_WIDTH, corruptPdf } from '../helpers/pdf-fixtures.js';
import { dropOnWindow, goTo, invoice, silentlyCut, startUi, shootBoth, type ServedUi, type UiSession } from './served-ui.js';

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
  await expect(source().getByRole('button', { name: 'Fit width' })).toHaveAttribute('aria-pressed', 'true');
  expect(await zoomLabel()).toBe(await realPercent());
  // Readable without dragging: an invoice's 11 pt body text drawn at ~9.5 px or more (at 50 %, the
  // old default, it was ~7 px). 64 % of 612 pt is 522 px.
  expect(await canvasWidth()).toBeGreaterThanOrEqual(500);
  expect(await zoomLabel()).toBeGreaterThanOrEqual(62);
  test.info().annotations.push({ type: 'figure', description: `1280x800 default: page drawn ${Math.round(await canvasWidth())} px wide at ${await zoomLabel()} %` });
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

test('hiding the results list gives the page its width; the list comes back as it was, and stays as left after a reload', async () => {
  const fitted = await canvasWidth();
  const hide = page.getByRole('button', { name: 'Hide the results list' });
  await expect(hide).toHaveAttribute('aria-expanded', 'true');
  await hide.click();
  await expect(page.getByRole('tree')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Show the results list' })).toBeFocused();
  await expect.poll(canvasWidth).toBeGreaterThan(fitted + 150);
  expect(await zoomLabel()).toBe(await realPercent());
  // "/" (search) brings the list back with the search focused; hidden again for the shots.
  await page.locator('body').press('/');
  await expect(page.getByPlaceholder(/Search every result/)).toBeFocused();
  await page.getByRole('button', { name: 'Hide the results list' }).click();
  await expect(page.getByRole('tree')).toBeHidden();
  test.info().annotations.push({ type: 'figure', description: `1280x800, list hidden: page drawn ${Math.round(await canvasWidth())} px wide at ${await zoomLabel()} %` });
  await shootBoth(page, 'results-layout-list-hidden');
  await page.reload();
  await goTo(page, 'Results');
  const show = page.getByRole('button', { name: 'Show the results list' });
  await expect(show).toHaveAttribute('aria-expanded', 'false');
  await show.click();
  await expect(page.getByRole('tree')).toBeVisible();
  await goTo(page, 'Runs');
  await page.getByRole('row', { name: /^Run .*Press Enter to open its results/ }).first().click();
  await page.getByRole('tree').getByText(NAME).click();
  await expect.poll(canvasWidth).toBe(fitted);
});

test('the panes resize with the keyboard and the mouse, and stay so after a reload', async () => {
  // The list first: the page can grow only by what the list gives up (the fields keep their minimum).
  const tree = page.getByRole('separator', { name: 'Resize the results list' });
  const treeBefore = Number(await tree.getAttribute('aria-valuenow'));
  await tree.focus();
  await page.keyboard.press('ArrowLeft');
  await expect(tree).toHaveAttribute('aria-valuenow', String(treeBefore - 16));

  // Dragged with the mouse too; Shift takes four steps at once, as far as the list's minimum.
  const grip = (await tree.boundingBox())!;
  await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
  await page.mouse.down();
  await page.mouse.move(grip.x + grip.width / 2 - 16, grip.y + grip.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect(tree).toHaveAttribute('aria-valuenow', String(treeBefore - 32));
  await tree.focus();
  await page.keyboard.press('Shift+ArrowLeft');
  await expect(tree).toHaveAttribute('aria-valuenow', await tree.getAttribute('aria-valuemin') ?? '');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(tree).toHaveAttribute('aria-valuenow', String(Number(await tree.getAttribute('aria-valuemin')) + 32));
  const treeAfter = Number(await tree.getAttribute('aria-valuenow'));

  const handle = page.getByRole('separator', { name: 'Resize the source page' });
  const before = Number(await handle.getAttribute('aria-valuenow'));
  const drawn = await canvasWidth();
  await handle.focus();
  await page.keyboard.press('ArrowLeft');
  await expect(handle).toHaveAttribute('aria-valuenow', String(before + 16));
  await expect.poll(canvasWidth).toBeGreaterThan(drawn + 10);
  expect(await zoomLabel()).toBe(await realPercent());

  await page.reload();
  await goTo(page, 'Results');
  await expect(page.getByRole('separator', { name: 'Resize the source page' })).toHaveAttribute('aria-valuenow', String(before + 16));
  await expect(page.getByRole('separator', { name: 'Resize the results list' })).toHaveAttribute('aria-valuenow', String(treeAfter));
  // Back to the defaults, for the checks below.
  await page.evaluate('localStorage.clear()');
  await page.reload();
  await goTo(page, 'Results');
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

test('the PDF viewer says the real zoom: it fits the width by default and zooms in steps', async () => {
  await page.getByRole('button', { name: 'Open original' }).click();
  const viewer = page.getByRole('dialog');
  const canvas = viewer.locator('canvas');
  await expect(canvas).toBeVisible();
  const drawn = async (): Promise<number> => (await canvas.boundingBox())?.width ?? 0;
  const label = async (): Promise<number> => Number((await viewer.getByRole('group', { name: 'Zoom' }).locator('output').textContent())?.replace(/\s*%$/, ''));
  const real = async (): Promise<number> => Math.round(((await drawn()) / (PAGE_WIDTH * (96 / 72))) * 100);
  await expect(viewer.getByRole('button', { name: 'Fit width' })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(label).toBeGreaterThan(0);
  await expect.poll(real).toBe(await label());
  const fit = await label();
  test.info().annotations.push({ type: 'figure', description: `1280x800 PDF viewer, fit width: ${Math.round(await drawn())} px at ${fit} %` });
  await shootBoth(page, 'pdf-viewer-zoom');

  await viewer.getByRole('button', { name: 'Zoom out' }).click();
  await expect.poll(label).toBeLessThan(fit);
  await expect.poll(real).toBe(await label());
  await expect(viewer.getByRole('button', { name: 'Fit width' })).toHaveAttribute('aria-pressed', 'false');
  // Step by step to 100 % (fit may be above or below it), each step waited for.
  for (let i = 0; i < 12 && (await label()) !== 100; i++) {
    const was = await label();
    await viewer.getByRole('button', { name: was > 100 ? 'Zoom out' : 'Zoom in' }).click();
    await expect.poll(label).not.toBe(was);
  }
  await expect.poll(label).toBe(100);
  await expect.poll(real).toBe(100);
  await viewer.getByRole('button', { name: 'Fit width' }).click();
  await expect.poll(label).toBe(fit);
  await viewer.getByRole('button', { name: 'Close' }).click();
  await expect(viewer).toBeHidden();
});

test('at 1024x768 every screen fits: no sideways scrolling, nothing cut without an ellipsis and a tooltip, short labels on one line', async () => {
  await page.setViewportSize({ width: 1024, height: 768 });
  for (const screen of ['Activity', 'Hot folders', 'Runs', 'Connection', 'Results'] as const) {
    await goTo(page, screen);
    await expect(page).toHaveTitle(`${screen} — DocSync`);
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), `${screen} scrolls sideways`).toBeLessThanOrEqual(0);
    expect(await silentlyCut(page), `${screen}: text cut without an ellipsis and a tooltip`).toEqual([]);
    if (screen === 'Activity') {
      // The row's buttons stay whole inside the queue (the name and progress give way instead).
      const grid = (await page.getByRole('grid', { name: 'Queue' }).boundingBox())!;
      for (const b of await page.getByRole('grid', { name: 'Queue' }).getByRole('button', { name: /^Reveal/ }).all()) {
        const box = (await b.boundingBox())!;
        expect(box.x + box.width, 'Reveal is whole').toBeLessThanOrEqual(grid.x + grid.width);
      }
    }
    if (screen === 'Runs') {
      // Counts, durations and times on one line each ("1 of 2 done, 1 failed", "09:30 PM").
      // The whole table shows without scrolling sideways (the run id gives way, whole on hover).
      const table = page.getByRole('grid', { name: 'Runs' }).locator('xpath=..');
      expect(await table.evaluate((el) => el.scrollWidth - el.clientWidth), 'the runs table scrolls sideways').toBeLessThanOrEqual(0);
      const row = page.getByRole('row', { name: /^Run / }).first();
      for (const cell of await row.locator('td.num, td.when').all()) expect(await lines(cell), await cell.textContent() ?? '').toBe(1);
    }
    await shootBoth(page, `narrow-${screen.toLowerCase().replace(' ', '-')}`);
  }
  await page.getByRole('tree').getByText(NAME).click();
  await expect(source().locator('canvas')).toBeVisible();
  expect(await silentlyCut(page)).toEqual([]);
  for (const name of [NAME, BAD]) {
    const label = page.getByRole('tree').locator('.label', { hasText: name });
    const whole = await label.evaluate((el) => el.scrollWidth <= el.clientWidth);
    if (!whole) await expect(label, `${name} is cut, so it says so`).toHaveAttribute('title', name);
  }
  expect(await lines(source().getByText(/^Page 1 of 1$/))).toBe(1);
  expect(await lines(source().getByText('Source page', { exact: true }))).toBe(1);
  for (const v of await page.getByRole('grid', { name: 'Extracted fields' }).getByText('✓ valid').all()) expect(await lines(v)).toBe(1);
  await expect.poll(realPercent).toBe(await zoomLabel());
  test.info().annotations.push({ type: 'figure', description: `1024x768: page drawn ${Math.round(await canvasWidth())} px wide at ${await zoomLabel()} %` });
  await shootBoth(page, 'narrow-results-file');
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(served.log).not.toMatch(/page error/);
});
