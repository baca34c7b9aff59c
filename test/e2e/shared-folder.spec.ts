// Shared hot folders in the UI (issue 15), in Debian's Chromium: TWO real `docsync serve` agents
// (their own data homes, --agent-name scan-a and scan-b) signed in to one real sandbox over HTTP on
// 127.0.0.1, watching one folder shared as "north". scan-b takes the files first and holds them in a
// batch that stays open; scan-a, added after, finds them claimed. Checked in scan-a's UI: the Hot
// folders screen lists both agents (this computer, the other one's files in progress), Activity marks
// the files "With another agent: scan-b" and the file's details say what happens if it stops; then
// scan-b is killed (-9): the panel says it stopped answering, and scan-a takes its files over and
// finishes them. Screenshots (1280x800, light and dark) in test-results/screens/shared-*.png.
import { expect, test, type Page } from '@playwright/test';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningSandbox } from '../../sandbox/index.js';
import { buildAllIfNeeded } from '../helpers/build-cli.js';
import { sandbox } from '../helpers/sandbox.js';
import { SCREENS, expectAccessible, fillQuickFolder, fillShare, goTo, invoice, openPage, serveUi, shootBoth, silentlyCut, type ServedUi } from './served-ui.js';

test.describe.configure({ mode: 'serial' });

const FILES = 4;
/** Short, so the takeover is seen within the test: files are taken over after 6 s without a sign of life. */
const LEASE_S = 6;
const HEARTBEAT_S = 1;

let root: string;
let inbox: string;
let sb: RunningSandbox;
let a: ServedUi;
let b: ServedUi;
let pageA: Page;
let pageB: Page;

/** An agent of the sandbox's member account, with a data home of its own under root. */
const agent = (name: string): Promise<ServedUi> =>
  serveUi(join(root, name), { env: { DOCSYNC_URL: sb.url, DOCSYNC_TOKEN: 'member-token' }, args: ['--agent-name', name] });

const queue = (page: Page) => page.getByRole('grid', { name: 'Queue' });
const fleetOf = (page: Page) => page.getByRole('region', { name: /^Shared as “north”/ });

/** Adds the shared folder from the agent's own UI, as a person would; `holdS`: how long a batch waits for more files. */
async function addSharedFolder(page: Page, holdS: number | null): Promise<void> {
  await goTo(page, 'Hot folders');
  await page.getByRole('button', { name: 'Add folder' }).first().click();
  await fillQuickFolder(page, inbox);
  if (holdS !== null) {
    await page.getByLabel('Wait after the last file (seconds)').fill(String(holdS));
    await page.getByLabel('Longest wait (seconds)').fill(String(holdS));
  }
  await fillShare(page, { name: 'north', leaseS: LEASE_S, heartbeatS: HEARTBEAT_S });
  await page.getByRole('button', { name: 'Add folder' }).last().click();
  await expect(page.getByRole('heading', { name: inbox })).toBeVisible();
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  await buildAllIfNeeded();
  await mkdir(SCREENS, { recursive: true });
  root = await mkdtemp(join(tmpdir(), 'docsync-shared-'));
  inbox = join(root, 'inbox');
  await mkdir(inbox);
  sb = await sandbox({ dataDir: join(root, 'service') });
  [a, b] = await Promise.all([agent('scan-a'), agent('scan-b')]);
  [pageA, pageB] = await Promise.all([openPage(browser, a), openPage(browser, b)]);
  await Promise.all([pageA.goto(a.url), pageB.goto(b.url)]);
});

test.afterAll(async () => {
  a?.stop();
  b?.stop();
  await sb?.close().catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

test('scan-b takes the files and holds them in a batch that stays open', async () => {
  // A minute and a half for more files: scan-b keeps its claims while scan-a is looked at.
  await addSharedFolder(pageB, 90);
  for (let n = 1; n <= FILES; n++) await writeFile(join(inbox, `inv-${n}.pdf`), await invoice(n));
  await goTo(pageB, 'Activity');
  await expect(queue(pageB).getByText(/^Queued$/)).toHaveCount(FILES, { timeout: 30_000 });
});

test('scan-a joins: Hot folders lists both agents, this computer and the one holding the files', async () => {
  await addSharedFolder(pageA, null);
  const fleet = fleetOf(pageA);
  await expect(fleet.getByRole('heading', { name: 'Shared as “north” with 1 other agent' })).toBeVisible({ timeout: 30_000 });
  const self = fleet.getByRole('row').filter({ has: pageA.getByRole('rowheader', { name: 'scan-a' }) });
  const other = fleet.getByRole('row').filter({ has: pageA.getByRole('rowheader', { name: 'scan-b' }) });
  await expect(self).toContainText('This computer');
  await expect(other).toContainText('Working');
  // Its files in progress, from its heartbeat; its last sign of life counted in seconds, live.
  await expect(other.getByRole('cell').nth(2)).toHaveText(String(FILES), { timeout: 20_000 });
  await expect(other.getByRole('cell').nth(1)).toHaveText(/^(just now|\d s ago)$/);
  await expect(pageA.getByRole('button', { name: `${FILES} with other agents, show them` })).toBeVisible({ timeout: 20_000 });
  expect(await silentlyCut(pageA)).toEqual([]);
  await shootBoth(pageA, 'shared-folders-two-agents');
  await expectAccessible(pageA, 'Hot folders, a shared folder with two agents');
});

test('Activity marks the files another agent handles, and says what happens if it stops', async () => {
  await pageA.getByRole('button', { name: `${FILES} with other agents, show them` }).click();
  const q = queue(pageA);
  await expect(q.getByText('With another agent: scan-b')).toHaveCount(FILES);
  await expect(q.getByText(/^Another agent$/)).toHaveCount(FILES);
  await expect(pageA.getByRole('button', { name: /^Another agent/, pressed: true })).toContainText(String(FILES));
  await q.getByRole('button', { name: 'Show details of inv-1.pdf' }).click();
  await expect(q.getByText(`scan-b, another DocSync agent sharing this folder, is processing it. If scan-b gives no sign of life for ${LEASE_S} s, an agent still running takes the file over and processes it.`)).toBeVisible();
  await shootBoth(pageA, 'shared-activity-elsewhere');
  await expectAccessible(pageA, 'Activity, files with another agent, one open');
});

test('scan-b is killed: it is marked as stopped answering, and scan-a takes its files over and finishes them', async () => {
  b.kill();
  await goTo(pageA, 'Hot folders');
  const other = fleetOf(pageA).getByRole('row').filter({ has: pageA.getByRole('rowheader', { name: 'scan-b' }) });
  // Late first (two signs of life missed), then stopped, in words: not colour alone.
  await expect(other).toContainText(/Late|Stopped answering/, { timeout: 20_000 });
  await expect(other).toContainText('Stopped answering', { timeout: 30_000 });
  expect(await silentlyCut(pageA)).toEqual([]);
  await shootBoth(pageA, 'shared-folders-agent-stopped');
  await expectAccessible(pageA, 'Hot folders, an agent that stopped answering');
  await goTo(pageA, 'Activity');
  await pageA.getByRole('button', { name: 'Clear filters' }).click();
  await expect(queue(pageA).getByText(/^Done$/)).toHaveCount(FILES, { timeout: 90_000 });
  await expect(queue(pageA).getByText(/With another agent/)).toHaveCount(0);
  expect(a.log).not.toMatch(/page error/);
});
