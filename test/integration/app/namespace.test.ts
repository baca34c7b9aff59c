// A service deployed with another namespace segment than the spec's `svc` (issue 11): the person
// gives it when signing in, it is remembered with the connection, and the engine's run settings
// carry the folder's PDF passwords under it, so an encrypted PDF opens.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { MemoryStore } from '../../../electron/engine/config/credentials.js';
import { resolveConnection } from '../../../electron/engine/config/connection.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { encryptPdf, invoicePdf } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

let env: CoreEnv | undefined;
let sb: RunningSandbox | undefined;
afterEach(async () => {
  await env?.close();
  await sb?.close();
  env = sb = undefined;
});

describe('signing in with a namespace', () => {
  it('is remembered, shown, and used for PDF passwords: an encrypted PDF opens on a service with segment "acme"', async () => {
    sb = await sandbox({ namespace: 'acme' });
    env = await coreEnv({ credentials: new MemoryStore() });
    const e = env;
    const info = await e.call('connection.signIn', { url: sb.url, token: 'admin-token', namespace: ' acme ' });
    expect(info.account).toMatchObject({ url: sb.url, namespace: 'acme' });
    expect(JSON.parse(await readFile(join(e.home, 'connection.json'), 'utf8'))).toMatchObject({ url: sb.url, namespace: 'acme' });

    const inbox = join(e.root, 'inbox');
    await mkdir(inbox, { recursive: true });
    await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, run: { pdfPasswords: { 'Locked Invoice': 'pw-9' } } } });
    const pdf = await encryptPdf(await invoicePdf({ invoiceNumber: 'INV-909', invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: '$9.00', vendor: 'Vault' }), 'pw-9');
    await writeFile(join(inbox, 'Locked Invoice.pdf'), pdf);
    await waitUntil(() => e.core.store.files.countByState().done + e.core.store.files.countByState().failed === 1, 'the encrypted PDF is processed', 30_000);
    const [f] = e.core.store.files.list();
    expect(f!.state, f!.error ?? '').toBe('done');
    const fields = Object.fromEntries(e.core.store.results.resultsOfFile(f!.id)[0]!.documents[0]!.fields.map((x) => [x.name, x.value]));
    expect(fields.invoice_number).toBe('INV-909');
  });

  it('a namespace that cannot be one is refused in words, and nothing is saved', async () => {
    sb = await sandbox();
    env = await coreEnv();
    await expect(env.call('connection.signIn', { url: sb.url, token: 'admin-token', namespace: 'a/b' })).rejects.toThrow(/"a\/b" cannot be a namespace: use letters, digits/);
    expect(env.core.info().account).toBeNull();
  });

  it('DOCSYNC_NAMESPACE overrides the saved one; a saved one holds for its own URL only', async () => {
    env = await coreEnv();
    await writeFile(join(env.home, 'connection.json'), JSON.stringify({ url: 'https://a.example', account: 'default', namespace: 'acme' }));
    const creds = new MemoryStore();
    await creds.set('https://a.example', 'default', 't');
    expect(await resolveConnection(env.home, creds, {})).toMatchObject({ namespace: 'acme' });
    expect(await resolveConnection(env.home, creds, { DOCSYNC_NAMESPACE: 'beta' })).toMatchObject({ namespace: 'beta' });
    expect(await resolveConnection(env.home, creds, { DOCSYNC_URL: 'https://b.example', DOCSYNC_TOKEN: 't' })).toMatchObject({ namespace: undefined });
    await expect(resolveConnection(env.home, creds, { DOCSYNC_NAMESPACE: '..' })).rejects.toThrow(/cannot be a namespace/);
  });
});
