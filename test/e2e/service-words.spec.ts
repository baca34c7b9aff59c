// Issue 12: the service's refusals read in the user's words on the Connection screen (the same
// sentence the command line prints, with the app's own advice), never a status code or an
// operation name. Through a real `docsync serve` and its built-in sandbox, in Chromium.
import { expect, test, type Page } from '@playwright/test';
import { goTo, shootBoth, startUi, type UiSession } from './served-ui.js';

let ui: UiSession;
let page: Page;
test.beforeAll(async ({ browser }) => {
  ui = await startUi(browser, 'docsync-words-');
  page = ui.page;
  await page.goto(ui.served.url);
});
test.afterAll(async () => {
  await ui?.close();
});

test('a wrong token: what happened and what to do, in words', async () => {
  const sandboxUrl = /using the built-in sandbox at (\S+)/.exec(ui.served.log)?.[1];
  expect(sandboxUrl, ui.served.log).toBeTruthy();
  await goTo(page, 'Connection');
  await page.getByRole('button', { name: 'Sign out' }).click();
  const form = page.getByRole('form', { name: 'Sign in to your service' });
  await form.getByLabel('Service URL').fill(sandboxUrl!);
  await form.getByLabel(/^Token/).fill('not-the-token');
  await form.getByRole('button', { name: 'Test connection' }).click();
  const said = form.getByRole('alert');
  await expect(said).toHaveText(`${sandboxUrl}: The service did not accept the sign-in (the token may be wrong or expired): sign in again`);
  await expect(said).not.toHaveText(/\b401\b|listBatches|http \d|failed \(/);
  await shootBoth(page, '20-connection-wrong-token');
  expect(ui.served.log).not.toMatch(/page error/);
});
