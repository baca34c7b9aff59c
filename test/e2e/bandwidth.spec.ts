// The bandwidth limit in the UI (issue 27, section 3), in Debian's Chromium against a real
// `docsync serve --bwlimit` on its built-in sandbox: the header says the limit in force and until
// when, and opens the Connection screen; the Bandwidth card there says that --bwlimit overrides the
// saved setting, refuses a timetable it cannot read in words (Save disabled), and saves one it can,
// into the data home. axe-core on the card in both schemes; screenshots in
// test-results/screens/bandwidth-*.png.
import { expect, test } from '@playwright/test';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAllIfNeeded } from '../helpers/build-cli.js';
import { expectAccessible, openPage, serveUi, shootBoth } from './served-ui.js';

test('the header says the limit in force; the Connection screen sets it', async ({ browser }) => {
  await buildAllIfNeeded();
  const root = await mkdtemp(join(tmpdir(), 'docsync-e2e-bw-'));
  // A timetable in force now, from the last whole hour until two hours on (local time, as serve's).
  const now = new Date();
  const hh = (h: number): string => `${String((h + 24) % 24).padStart(2, '0')}:00`;
  const until = hh(now.getHours() + 2);
  const served = await serveUi(root, { args: ['--bwlimit', `${hh(now.getHours())},2M ${until},off`] });
  try {
    const page = await openPage(browser, served);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(served.url);
    // After 22:00 the change is tomorrow, and the header names its day.
    const badge = page.getByRole('banner').getByRole('button', { name: new RegExp(`^limited to 2 MiB/s until (?:[A-Z][a-z]{2} )?${until}$`) });
    await expect(badge).toBeVisible();
    await shootBoth(page, 'bandwidth-header');

    await badge.click();
    const card = page.getByRole('form', { name: 'Bandwidth' });
    await expect(card).toBeVisible();
    await expect(card).toContainText('For now DocSync uses --bwlimit');
    const field = card.getByLabel('Limit for uploads and downloads');
    await field.fill('Mon-Fri,25:00,2M');
    await expect(card).toContainText('"25:00" in "Mon-Fri,25:00,2M" is not a time: write HH:MM, from 00:00 to 23:59.');
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(card.getByRole('button', { name: 'Save' })).toBeDisabled();
    await shootBoth(page, 'bandwidth-card-error');

    await field.fill('Mon-Fri,08:00,2M 18:00,off');
    await card.getByRole('button', { name: 'Save' }).click();
    await expect(card.getByRole('status')).toHaveText('Saved.');
    expect(JSON.parse(await readFile(join(root, 'home', 'bandwidth.json'), 'utf8'))).toEqual({ bwlimit: 'Mon-Fri,08:00,2M 18:00,off' });
    await expect(card.getByRole('button', { name: 'Remove the limit' })).toBeVisible();
    await expectAccessible(page, 'the Connection screen with the Bandwidth card');
    await shootBoth(page, 'bandwidth-card');
    expect(served.log).not.toContain('page error');
  } finally {
    served.stop();
    await rm(root, { recursive: true, force: true });
  }
});
