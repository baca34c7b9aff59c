// Fixing a folder's settings offers to retry the files that failed because of them (issue 12): an
// encrypted PDF fails at the service for want of its password; once the password is in the folder's
// settings, the files that failed at the service are counted and go again, and this time are done.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { encryptPdf, invoicePdf } from '../../helpers/pdf-fixtures.js';
import { waitUntil } from '../../helpers/wait.js';

let env: CoreEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('retrying the files a settings change may fix', () => {
  it('PDFs that failed for want of their password are counted, and after the password is added go again together and are done', { timeout: 60_000 }, async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    const inbox = join(e.root, 'inbox');
    await mkdir(inbox, { recursive: true });
    const settings = { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER };
    const folder = await e.call('folders.add', { settings });
    expect(await e.call('folders.failedBySettings', { id: folder.id })).toEqual({ count: 0 });

    const pdf = await encryptPdf(await invoicePdf({ invoiceNumber: 'INV-9', invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: '$9.00', vendor: 'Vault' }), 'pw-9');
    await writeFile(join(inbox, 'Locked Invoice.pdf'), pdf);
    await writeFile(join(inbox, 'Locked Invoice 2.pdf'), pdf);
    await waitUntil(() => e.core.store.files.countByState().failed === 2, 'the encrypted PDFs failed', 30_000);
    expect(e.core.store.files.list({ state: 'failed' })[0]?.error).toMatch(/password/);
    expect(await e.call('folders.failedBySettings', { id: folder.id })).toEqual({ count: 2 });

    const pdfPasswords = { 'Locked Invoice': 'pw-9', 'Locked Invoice 2': 'pw-9' };
    await e.call('folders.update', { id: folder.id, settings: { ...settings, run: { pdfPasswords } } });
    expect(await e.call('folders.retryFailed', { id: folder.id })).toEqual({ retried: 2, problems: [] });
    // Together, in one batch (one run), not one run each.
    expect(new Set(e.core.store.files.list({ folderId: folder.id }).map((f) => f.batchId)).size).toBe(1);
    await waitUntil(() => e.core.store.files.countByState().done === 2, 'the PDFs are done with their password', 30_000);
    expect(await e.call('folders.failedBySettings', { id: folder.id })).toEqual({ count: 0 });
    await expect(e.call('folders.retryFailed', { id: folder.id + 1 })).rejects.toThrow(`no hot folder with id ${folder.id + 1}`);
  });
});
