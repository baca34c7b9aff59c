/** Secrets (spec 4.7, namespace configurable) and audit logs (spec 4.9) through the client. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../../electron/engine/service/index.js';
import { clientEnv, failure, type ClientEnv } from './env.js';

let env: ClientEnv;
let admin: ServiceClient;
let member: ServiceClient;

beforeAll(async () => {
  env = await clientEnv();
  admin = env.client('admin-token', { username: 'admin' });
  member = env.client('member-token');
});
afterAll(() => env.close());

describe('secrets (spec 4.7)', () => {
  it('create (200), list with the record fields, update keeps what is not given, delete', async () => {
    const before = Date.now();
    expect(await admin.createSecret({ alias: 'erp', value: 's3cret', description: 'ERP key', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] })).toEqual({ recovered: false });
    const [rec] = (await admin.listSecrets({ alias: 'erp' })).secrets;
    expect(rec).toMatchObject({ alias: 'erp', description: 'ERP key', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'], org: 'sandbox-org', created_by: 'admin' });
    expect(rec?.created_at).toBeGreaterThanOrEqual(before - 1000);
    expect(rec).not.toHaveProperty('value');
    await admin.updateSecret({ alias: 'erp', description: 'rotated' });
    expect((await admin.listSecrets({ alias: 'erp' })).secrets[0]).toMatchObject({ description: 'rotated', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] });
    await admin.deleteSecret('erp');
    expect((await admin.listSecrets({ alias: 'erp' })).secrets).toEqual([]);
  });

  it('a secret named in run settings is accepted by a deployment whose secret key it fills', async () => {
    await admin.createSecret({ alias: 'erp-run', value: 'k', allowed_workspaces_type: 'ALL' });
    const { id } = await admin.createBatch({ name: 'with secret', workspace: 'team' });
    await admin.putBatchFile(id, 'a.txt', (await env.file('a.txt', Buffer.from('Invoice Number: 1'))).path);
    const run = await admin.startDeploymentRun('sandbox-invoices', { batch_id: id, settings: { keys: { secret: { erp_api_key: 'erp-run' } } } });
    expect(run.status).toBe('RUNNING');
    const e = await failure(() => admin.startDeploymentRun('sandbox-invoices', { batch_id: id, settings: { keys: { secret: { erp_api_key: 'missing' } } } }));
    expect(e).toMatchObject({ status: 400 });
    await admin.waitForRun(run.id, { initialDelayMs: 10, maxDelayMs: 50 });
  });

  it('only admins create, update and delete (403); non-admins list a workspace they belong to', async () => {
    await admin.createSecret({ alias: 'team-visible', value: 'v', allowed_workspaces_type: 'ALL' });
    expect(await failure(() => member.createSecret({ alias: 'm', value: 'v', allowed_workspaces_type: 'ALL' }))).toMatchObject({ kind: 'http', status: 403, operation: 'createSecret' });
    expect(await failure(() => member.updateSecret({ alias: 'team-visible', description: 'x' }))).toMatchObject({ status: 403 });
    expect(await failure(() => member.deleteSecret('team-visible'))).toMatchObject({ status: 403 });
    expect(await failure(() => member.listSecrets())).toMatchObject({ status: 403, operation: 'listSecrets' });
    expect((await member.listSecrets({ workspace: 'team' })).secrets.map((s) => s.alias)).toContain('team-visible');
    expect(await failure(() => member.listSecrets({ workspace: 'personal-admin' }))).toMatchObject({ status: 403 });
  });

  it('the service\'s 400s and 404s: SOME without workspaces, a duplicate alias, an unknown alias', async () => {
    expect(await failure(() => admin.createSecret({ alias: 'some', value: 'v', allowed_workspaces_type: 'SOME' }))).toMatchObject({ status: 400 });
    await admin.createSecret({ alias: 'dup', value: 'v', allowed_workspaces_type: 'NONE' });
    const dup = await failure(() => admin.createSecret({ alias: 'dup', value: 'v', allowed_workspaces_type: 'NONE' }));
    expect(dup).toMatchObject({ kind: 'http', status: 409, retryable: false });
    expect(await failure(() => admin.updateSecret({ alias: 'nope', value: 'x' }))).toMatchObject({ status: 404 });
    expect(await failure(() => admin.deleteSecret('nope'))).toMatchObject({ status: 404, operation: 'deleteSecret' });
  });

  it('the namespace segment is configurable: a service under /v2/acme/secrets', async () => {
    const other = await clientEnv({ namespace: 'acme' });
    try {
      const right = other.client('admin-token', { namespace: 'acme' });
      await right.createSecret({ alias: 'a', value: 'v', allowed_workspaces_type: 'ALL' });
      expect((await right.listSecrets()).secrets.map((s) => s.alias)).toEqual(['a']);
      expect(await failure(() => other.client().listSecrets())).toMatchObject({ status: 404 });
    } finally {
      await other.close();
    }
  });
});

describe('audit logs (spec 4.9)', () => {
  it('entries of the calls made, filtered by log_type and email, paged with start/size', async () => {
    await admin.listSecrets();
    const secrets = await admin.auditLogs({ log_type: 'org_secrets_v2', email: 'admin@sandbox.test' });
    expect(secrets.results.length).toBeGreaterThan(0);
    for (const e of secrets.results) {
      expect(e).toMatchObject({ log_type: 'org_secrets_v2', email: 'admin@sandbox.test' });
      expect(e.timestamp_millis).toMatch(/^\d{13}$/);
    }
    const page = await admin.auditLogs({ start: 1, size: 2 });
    expect(page.results).toHaveLength(2);
    const window = await admin.auditLogs({ start_time: String(Date.now() + 60_000) });
    expect(window.results).toEqual([]);
  });

  it('without the audit-log permission: 403 with the v1 message; a bad log_type is a 400', async () => {
    const e = await failure(() => member.auditLogs());
    expect(e).toMatchObject({ kind: 'http', status: 403, operation: 'auditLogs' });
    expect(e.message).toMatch(/audit-log access permission/);
    expect(await failure(() => admin.auditLogs({ log_type: 'nope' as 'api_v2' }))).toMatchObject({ status: 400 });
  });
});
