// axe-core over every screen of the UI, light and dark, in Debian's Chromium against a real
// `docsync serve` and its built-in sandbox: no serious or critical violation anywhere, nor the
// moderate ones issue 12 names (region, heading-order), including an error notice and the header
// while the service is unreachable, and label-content-name-mismatch (off in axe by default); the folder form's share section and a
// shared folder's agents (issue 15). Also: Tab from the top of the page reaches
// the sidebar and every screen in it, arrow keys still move through it, and each screen names the page.
import { expect, test, type Page } from '@playwright/test';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { corruptPdf } from '../helpers/pdf-fixtures.js';
import { sandbox } from '../helpers/sandbox.js';
import { scannedInvoice } from '../helpers/scans.js';
import {
  dropOnWindow, expectAccessible as expectAccessibleOn, fillQuickFolder, fillShare, goTo, invoice, startUi, shootBoth, type ScreenName, type ServedUi, type UiSession,
} from './served-ui.js';

test.describe.configure({ mode: 'serial' });

let inbox: string;
let served: ServedUi;
let ui: UiSession | undefined;
let page: Page;

const expectAccessible = (what: string): Promise<void> => expectAccessibleOn(page, what);

async function expectTitle(screen: string): Promise<void> {
  await expect.soft(page).toHaveTitle(`${screen} — DocSync`, { timeout: 5_000 });
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  ui = await startUi(browser, 'docsync-a11y-');
  ({ inbox, served, page } = ui);
  await page.goto(served.url);
  await expect(page.getByRole('heading', { name: 'Activity', level: 1 })).toBeVisible();
});

test.afterAll(async () => {
  await ui?.close();
});

test('Activity, empty: the first run\'s welcome', async () => {
  await goTo(page, 'Activity');
  await expect(page.getByRole('heading', { name: 'Welcome to DocSync' })).toBeVisible();
  await expectTitle('Activity');
  await expectAccessible('Activity, the first run');
});

test('Connection, signed in to the built-in sandbox', async () => {
  await goTo(page, 'Connection');
  await expect(page.getByRole('heading', { name: /Signed in as the built-in sandbox/ })).toBeVisible();
  await expectTitle('Connection');
  await expectAccessible('Connection');
});

test('Hot folders: empty, the form open, one folder', async () => {
  await goTo(page, 'Hot folders');
  await expect(page.getByRole('heading', { name: 'No hot folders yet' })).toBeVisible();
  await expectTitle('Hot folders');
  await expectAccessible('Hot folders, empty');
  await page.getByRole('button', { name: 'Add folder' }).first().click();
  await fillQuickFolder(page, inbox);
  await expectAccessible('Hot folders, the folder form');
  await page.getByRole('button', { name: 'Add folder' }).last().click();
  await expect(page.getByRole('heading', { name: inbox })).toBeVisible();
  await expectAccessible('Hot folders, one folder');
});

test('Activity with rows (done and failed), one of them open', async () => {
  for (const n of [1, 2]) await writeFile(join(inbox, `inv-${n}.pdf`), await invoice(n));
  await writeFile(join(inbox, 'smudged.pdf'), await corruptPdf());
  await goTo(page, 'Activity');
  const queue = page.getByRole('grid', { name: 'Queue' });
  await expect(queue.getByText(/^Done$/)).toHaveCount(2, { timeout: 60_000 });
  await expect(queue.getByText(/^Failed$/)).toHaveCount(1, { timeout: 60_000 });
  await expectAccessible('Activity with rows');
  await queue.getByRole('button', { name: 'Show details of inv-1.pdf' }).click();
  await expect(queue.getByRole('button', { name: 'Hide details of inv-1.pdf' })).toBeVisible();
  await shootBoth(page, 'a11y-activity-open-row');
  await expectAccessible('Activity, a row open');
});

test('Results with nothing open', async () => {
  await goTo(page, 'Results');
  await expectTitle('Results');
  await expectAccessible('Results, nothing open');
});

test('Runs; the run opens in Results', async () => {
  await goTo(page, 'Runs');
  const run = page.getByRole('row', { name: /^Run .*Press Enter to open its results/ }).first();
  await expect(run).toBeVisible();
  await expectTitle('Runs');
  await expectAccessible('Runs');
  await run.click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeAttached();
  await expectTitle('Results');
});

test('Results: a document, its source page, the PDF viewer, search hits', async () => {
  await page.getByRole('tree').getByText('inv-2.pdf').first().click();
  const fields = page.getByRole('grid', { name: 'Extracted fields' });
  await fields.getByText('INV-2').click();
  await expect(page.getByRole('region', { name: 'Source page' }).locator('canvas')).toBeVisible();
  await expect(page.getByLabel('Source of invoice_number').first()).toBeVisible();
  await expectAccessible('Results with a document and its source page');

  await page.getByRole('button', { name: 'Open original' }).click();
  const viewer = page.getByRole('dialog');
  await expect(viewer.locator('canvas')).toBeVisible();
  await shootBoth(page, 'a11y-pdf-viewer');
  await expectAccessible('the PDF viewer');
  await viewer.getByRole('button', { name: 'Close' }).click();
  await expect(viewer).toBeHidden();

  await page.getByPlaceholder(/Search every result/).fill('INV-2');
  await expect(page.getByRole('listbox', { name: 'Search results' }).getByText(/INV-2/).first()).toBeVisible();
  await expectAccessible('Results, search hits');
  await page.getByPlaceholder(/Search every result/).fill('');
});

test('Results: an image original (a scanned TIFF), its source page with a box, the image viewer', async () => {
  // Issue 13: a scanned two-page TIFF through the hot folder, read by the sandbox's OCR.
  const scan = await scannedInvoice({ invoiceNumber: 'INV-31', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$31.00', vendor: 'Vendor 31' }, 'tiff', { dpi: 150, pages: 2 });
  await writeFile(join(inbox, 'scan-31.tif'), scan.bytes);
  await goTo(page, 'Activity');
  const queue = page.getByRole('grid', { name: 'Queue' });
  await expect(queue.getByRole('row').filter({ hasText: 'scan-31.tif' }).getByText(/^Done$/)).toBeVisible({ timeout: 120_000 });
  await queue.getByRole('button', { name: 'Show details of scan-31.tif' }).click();
  await queue.getByRole('button', { name: 'Open results' }).click();
  await page.getByRole('tree').getByText('scan-31.tif').first().click();
  await page.getByRole('grid', { name: 'Extracted fields' }).getByText('INV-31', { exact: true }).click();
  const source = page.getByRole('region', { name: 'Source page' });
  await expect(source.getByText('Page 1 of 2')).toBeVisible();
  await expect(source.getByRole('button', { name: 'Source of invoice_number' })).toBeVisible();
  await expectAccessible('Results with a scanned TIFF and its source page');

  await page.getByRole('button', { name: 'Open original' }).click();
  const viewer = page.getByRole('dialog', { name: 'Original' });
  await expect(viewer.locator('canvas')).toBeVisible();
  await expect(viewer.getByText('Page 1 of 2')).toBeVisible();
  await shootBoth(page, 'a11y-image-viewer');
  await expectAccessible('the viewer with a TIFF');
  await viewer.getByRole('button', { name: 'Close' }).click();
  await expect(viewer).toBeHidden();
});

test('Hot folders: the folder form\'s share section (with a problem on a field), a shared folder and its agents', async () => {
  await goTo(page, 'Hot folders');
  await page.getByRole('button', { name: `Edit ${inbox}` }).click();
  await fillShare(page, { name: '', leaseS: 20, heartbeatS: 2 });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByLabel('Share name')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Give the share a name, the same on every agent that shares this folder')).toBeVisible();
  await page.getByRole('group', { name: 'Share with other DocSync agents' }).scrollIntoViewIfNeeded();
  await shootBoth(page, 'a11y-share-section-error');
  await expectAccessible('the folder form, its share section with a problem');
  await page.getByLabel('Share name').fill('a11y-share');
  await page.getByRole('button', { name: 'Save' }).click();
  // This agent alone in the share: the panel lists it, marked as this computer.
  const fleet = page.getByRole('region', { name: 'Shared as “a11y-share” with no other agent yet' });
  await expect(fleet.getByRole('row').filter({ hasText: 'This computer' })).toBeVisible({ timeout: 30_000 });
  await shootBoth(page, 'a11y-shared-folder');
  await expectAccessible('Hot folders, a shared folder and its agents');
  // Back to a folder of its own, as the later checks expect.
  await page.getByRole('button', { name: `Edit ${inbox}` }).click();
  await page.getByLabel("Share this folder's files with other DocSync agents watching it").uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(fleet).toHaveCount(0);
});

test('the drop dialog', async () => {
  await goTo(page, 'Activity');
  await dropOnWindow(page, [{ name: 'dropped.pdf', bytes: await invoice(3) }]);
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /sandbox-invoices/ }).first().click();
  await expectAccessible('the drop dialog');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});

test('Connection, signed out: the sign-in form', async () => {
  await goTo(page, 'Connection');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to your service' })).toBeVisible();
  await expectAccessible('Connection, the sign-in form');
  await goTo(page, 'Activity');
  await expectAccessible('Activity, signed out (the welcome)');
  expect(served.log).not.toMatch(/page error/);
});

test('a visible error notice ("sign in first"), which goes by itself once signed in', async () => {
  await goTo(page, 'Activity');
  await page.getByRole('button', { name: 'Pause all' }).click();
  const notice = page.getByRole('region', { name: 'Notifications' }).getByRole('alert').filter({ hasText: /sign in \(or try the sandbox\) first/ });
  await expect(notice).toBeVisible();
  await shootBoth(page, 'a11y-error-notice');
  await expectAccessible('an error notice');
  // The engine tagged the error as needing a sign-in: signing in takes the notice away.
  await page.getByRole('region', { name: 'Welcome to DocSync' }).getByRole('button', { name: 'Try the sandbox' }).click();
  await expect(notice).toHaveCount(0);
});

test('the header while the service is unreachable (offline)', async () => {
  test.setTimeout(120_000);
  // A service of its own, so it can be stopped: signed in for this session only (no keychain here).
  const sb = await sandbox({ dataDir: join(ui!.root, 'service') });
  try {
    await goTo(page, 'Connection');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel(/Service URL/i).fill(sb.url);
    await page.getByLabel(/^Token/i).fill('member-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText(/no keychain is available/i).first()).toBeVisible();
    await page.getByLabel(/session only/i).check();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: `Signed in as ${new URL(sb.url).host}` })).toBeVisible();
  } finally {
    await sb.close();
  }
  await expect(page.getByRole('banner').getByText(/offline/i).first()).toBeVisible({ timeout: 40_000 });
  for (const screen of ['Activity', 'Results'] as const) {
    await goTo(page, screen);
    await shootBoth(page, `a11y-offline-${screen.toLowerCase()}`);
    await expectAccessible(`${screen}, offline`);
  }
});

test('Tab from the top reaches every screen in the sidebar; arrow keys still move through it', async () => {
  const nav = page.getByRole('navigation', { name: 'Screens' });
  const names: ScreenName[] = ['Activity', 'Hot folders', 'Runs', 'Results', 'Connection'];
  for (const name of names) {
    await page.goto(served.url);
    await expect(nav.getByRole('button', { name: 'Activity' })).toBeVisible();
    // From the top of the page, Tab until the item has focus (a handful of stops at most).
    const item = nav.getByRole('button', { name });
    let reached = false;
    for (let i = 0; i < 12 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await item.evaluate((el) => el === el.ownerDocument.activeElement);
    }
    expect(reached, `Tab from the top reaches "${name}" in the sidebar`).toBe(true);
    await page.keyboard.press('Enter');
    await expect(item).toHaveAttribute('aria-current', 'page');
    await expectTitle(name);
  }
  // Arrow keys: from Connection, Down wraps to Activity and opens it; Up goes back.
  await page.keyboard.press('ArrowDown');
  await expect(nav.getByRole('button', { name: 'Activity' })).toBeFocused();
  await expect(nav.getByRole('button', { name: 'Activity' })).toHaveAttribute('aria-current', 'page');
  await expectTitle('Activity');
  await page.keyboard.press('ArrowUp');
  await expect(nav.getByRole('button', { name: 'Connection' })).toBeFocused();
  await expectTitle('Connection');
});
