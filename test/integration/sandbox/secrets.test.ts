/**
 * Organization secrets, /v2/{ns}/secrets (spec 4.7, 5.4; shapes from service-shapes.md "Secrets list"):
 * admin-only writes, required fields and enums, listing rules for admins and members, PATCH that
 * changes only what it names, delete, and a configurable namespace segment.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { secretRow } from '../../../sandbox/routes/secrets.js';
import { caller, sandbox } from '../../helpers/sandbox.js';

interface Secret {
  alias: string;
  description: string;
  allowed_workspaces_type: string;
  allowed_workspaces: string[];
  org: string;
  created_at: number;
  created_by: string;
  updated_at: number;
  last_updated_by: string;
}

const S = '/v2/svc/secrets';
let sb: RunningSandbox;
let admin: ReturnType<typeof caller>;
let member: ReturnType<typeof caller>;

const create = (body: Record<string, unknown>) => admin('POST', S, body);
async function list(who: ReturnType<typeof caller>, query = ''): Promise<Secret[]> {
  const a = await who<{ secrets: Secret[] }>('GET', `${S}${query}`);
  expect(a.status).toBe(200);
  return a.body.secrets;
}
const aliases = (xs: Secret[]): string[] => xs.map((x) => x.alias).sort();

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
  // One secret of each scope, used by the listing tests.
  for (const [alias, type, ws] of [
    ['scope-all', 'ALL', undefined],
    ['scope-team', 'SOME', ['team']],
    ['scope-admin-only', 'SOME', ['personal-admin']],
    ['scope-none', 'NONE', undefined],
  ] as const) {
    expect((await create({ alias, value: `v-${alias}`, allowed_workspaces_type: type, allowed_workspaces: ws })).status).toBe(200);
  }
});

afterAll(async () => {
  await sb?.close();
  if (sb) await rm(sb.dataDir, { recursive: true, force: true });
});

describe('POST create (spec 4.7: admins only; alias, value, allowed_workspaces_type required)', () => {
  it('an admin creates a secret: 200 with an empty body', async () => {
    const a = await create({ alias: 'erp-key', description: 'ERP', value: 's3cret', allowed_workspaces_type: 'ALL' });
    expect(a.status).toBe(200);
    expect(a.text).toBe('');
    expect(aliases(await list(admin, '?alias=erp-key'))).toEqual(['erp-key']);
  });

  it.each([
    ['alias', { value: 'v', allowed_workspaces_type: 'ALL' }],
    ['value', { alias: 'no-value', allowed_workspaces_type: 'ALL' }],
    ['allowed_workspaces_type', { alias: 'no-type', value: 'v' }],
  ])('without %s: 400 {message}, nothing created', async (_field, body) => {
    const a = await create(body);
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ message: expect.any(String) });
    expect(aliases(await list(admin)).filter((x) => x.startsWith('no-'))).toEqual([]);
  });

  it('type SOME without allowed_workspaces (absent or empty): 400', async () => {
    expect((await create({ alias: 'some-1', value: 'v', allowed_workspaces_type: 'SOME' })).status).toBe(400);
    expect((await create({ alias: 'some-2', value: 'v', allowed_workspaces_type: 'SOME', allowed_workspaces: [] })).status).toBe(400);
  });

  it('an allowed_workspaces_type outside ALL | SOME | NONE: 400', async () => {
    expect((await create({ alias: 'bad-type', value: 'v', allowed_workspaces_type: 'EVERYONE' })).status).toBe(400);
    expect((await create({ alias: 'bad-type', value: 'v', allowed_workspaces_type: 'all' })).status).toBe(400);
  });

  it('allowed_workspaces is ignored unless the type is SOME', async () => {
    expect((await create({ alias: 'ignored-ws', value: 'v', allowed_workspaces_type: 'ALL', allowed_workspaces: ['team'] })).status).toBe(200);
    const [s] = await list(admin, '?alias=ignored-ws');
    expect(s?.allowed_workspaces_type).toBe('ALL');
    expect(s?.allowed_workspaces).toEqual([]);
  });

  it('an alias that exists: 409 and the first secret is unchanged', async () => {
    const a = await create({ alias: 'scope-all', value: 'other', allowed_workspaces_type: 'NONE' });
    expect(a.status).toBe(409);
    expect(a.body).toEqual({ message: expect.any(String) });
    expect((await list(admin, '?alias=scope-all'))[0]?.allowed_workspaces_type).toBe('ALL');
    expect(secretRow(sb.core, 'scope-all')?.value).toBe('v-scope-all');
  });
});

describe('GET list (spec 4.7: only admins list all; non-admins give a workspace they belong to)', () => {
  it('an admin lists every secret, with the fields of service-shapes.md and never the value', async () => {
    const all = await list(admin);
    expect(aliases(all)).toEqual(expect.arrayContaining(['scope-all', 'scope-team', 'scope-admin-only', 'scope-none']));
    const team = all.find((s) => s.alias === 'scope-team') as Secret;
    expect(Object.keys(team).sort()).toEqual(
      ['alias', 'allowed_workspaces', 'allowed_workspaces_type', 'created_at', 'created_by', 'description', 'last_updated_by', 'org', 'updated_at'].sort(),
    );
    expect(team).toMatchObject({ allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'], org: 'sandbox-org', created_by: 'admin', last_updated_by: 'admin' });
    expect(team.created_at).toBeGreaterThan(Date.now() - 60_000); // Unix milliseconds
    expect(team.created_at).toBeLessThanOrEqual(Date.now());
    for (const s of all) {
      expect(s).not.toHaveProperty('value');
      expect(JSON.stringify(s)).not.toContain(`v-${s.alias}`);
    }
  });

  it('alias filters to that secret; an unknown alias gives an empty list', async () => {
    expect(aliases(await list(admin, '?alias=scope-none'))).toEqual(['scope-none']);
    expect(await list(admin, '?alias=does-not-exist')).toEqual([]);
  });

  it('a non-admin without a workspace: 403', async () => {
    const a = await member('GET', S);
    expect(a.status).toBe(403);
    expect(a.body).toEqual({ message: expect.any(String) });
  });

  it('a non-admin with a workspace they are not a member of: 403', async () => {
    expect((await member('GET', `${S}?workspace=personal-admin`)).status).toBe(403);
    expect((await member('GET', `${S}?workspace=no-such-ws`)).status).toBe(403);
  });

  it('a member with "team" sees only the secrets allowed there: ALL, and SOME including team; not NONE', async () => {
    expect(aliases(await list(member, '?workspace=team')).filter((a) => a.startsWith('scope-'))).toEqual(['scope-all', 'scope-team']);
  });

  it('workspace and alias combine', async () => {
    expect(aliases(await list(member, '?workspace=team&alias=scope-team'))).toEqual(['scope-team']);
    expect(await list(member, '?workspace=team&alias=scope-none')).toEqual([]);
  });

  it('an admin filtering by workspace gets the same scoping', async () => {
    expect(aliases(await list(admin, '?workspace=personal-admin')).filter((a) => a.startsWith('scope-'))).toEqual(['scope-admin-only', 'scope-all']);
  });
});

describe('writes by a non-admin (spec 4.7, issue 2: 403)', () => {
  it('member create, patch and delete: 403 and nothing changes', async () => {
    expect((await member('POST', S, { alias: 'by-member', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(403);
    expect((await member('PATCH', S, { alias: 'scope-team', description: 'hacked' })).status).toBe(403);
    expect((await member('DELETE', S, { alias: 'scope-team' })).status).toBe(403);
    expect((await caller(sb.url, 'service-token')('POST', S, { alias: 'by-service', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(403);
    const all = await list(admin);
    expect(aliases(all)).not.toContain('by-member');
    expect(aliases(all)).not.toContain('by-service');
    expect(all.find((s) => s.alias === 'scope-team')?.description).toBe('');
  });
});

describe('PATCH (spec 4.7: unspecified fields stay unchanged)', () => {
  beforeAll(async () => {
    expect((await create({ alias: 'patch-me', description: 'd0', value: 'v0', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] })).status).toBe(200);
  });

  it('only description: the value, type and workspaces stay; updated_at moves, created_at stays', async () => {
    const [before] = await list(admin, '?alias=patch-me');
    await new Promise((r) => setTimeout(r, 5));
    const a = await admin('PATCH', S, { alias: 'patch-me', description: 'd1' });
    expect(a.status).toBe(200);
    expect(a.text).toBe('');
    const [after] = await list(admin, '?alias=patch-me');
    expect(after).toMatchObject({ description: 'd1', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'], created_at: before?.created_at });
    expect(after!.updated_at).toBeGreaterThan(before!.updated_at);
    expect(secretRow(sb.core, 'patch-me')?.value).toBe('v0');
  });

  it('only value: the description and scope stay', async () => {
    expect((await admin('PATCH', S, { alias: 'patch-me', value: 'v1' })).status).toBe(200);
    expect(secretRow(sb.core, 'patch-me')?.value).toBe('v1');
    expect((await list(admin, '?alias=patch-me'))[0]).toMatchObject({ description: 'd1', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team'] });
  });

  it('only allowed_workspaces of a SOME secret: the list changes, nothing else', async () => {
    expect((await admin('PATCH', S, { alias: 'patch-me', allowed_workspaces: ['team', 'personal-member'] })).status).toBe(200);
    expect((await list(admin, '?alias=patch-me'))[0]).toMatchObject({ description: 'd1', allowed_workspaces_type: 'SOME', allowed_workspaces: ['team', 'personal-member'] });
    expect(secretRow(sb.core, 'patch-me')?.value).toBe('v1');
  });

  it('type to NONE: the secret leaves the team listing', async () => {
    expect(aliases(await list(member, '?workspace=team'))).toContain('patch-me');
    expect((await admin('PATCH', S, { alias: 'patch-me', allowed_workspaces_type: 'NONE' })).status).toBe(200);
    expect(aliases(await list(member, '?workspace=team'))).not.toContain('patch-me');
  });

  it('type to SOME without allowed_workspaces, or to an unknown type: 400, unchanged', async () => {
    expect((await admin('PATCH', S, { alias: 'patch-me', allowed_workspaces_type: 'SOME' })).status).toBe(400);
    expect((await admin('PATCH', S, { alias: 'patch-me', allowed_workspaces_type: 'MANY' })).status).toBe(400);
    expect((await list(admin, '?alias=patch-me'))[0]?.allowed_workspaces_type).toBe('NONE');
  });

  it('without alias: 400; an unknown alias: 404', async () => {
    expect((await admin('PATCH', S, { description: 'x' })).status).toBe(400);
    const a = await admin('PATCH', S, { alias: 'no-such-secret', description: 'x' });
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ message: expect.any(String) });
  });
});

describe('DELETE (spec 4.7: JSON body {alias})', () => {
  it('deletes: 200 with an empty body, then the secret is gone and a second delete is 404', async () => {
    expect((await create({ alias: 'delete-me', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(200);
    const a = await admin('DELETE', S, { alias: 'delete-me' });
    expect(a.status).toBe(200);
    expect(a.text).toBe('');
    expect(await list(admin, '?alias=delete-me')).toEqual([]);
    expect((await admin('DELETE', S, { alias: 'delete-me' })).status).toBe(404);
    expect((await admin('PATCH', S, { alias: 'delete-me', value: 'x' })).status).toBe(404);
  });

  it('without alias: 400', async () => {
    expect((await admin('DELETE', S, {})).status).toBe(400);
  });

  it('the alias can be created again after a delete', async () => {
    expect((await create({ alias: 'delete-me', value: 'again', allowed_workspaces_type: 'NONE' })).status).toBe(200);
    expect((await list(admin, '?alias=delete-me'))[0]?.allowed_workspaces_type).toBe('NONE');
  });
});

describe('namespace segment (spec 4.7: "svc" stands for the service-specific segment)', () => {
  it('a sandbox started with namespace "acme" answers /v2/acme/secrets and 404s /v2/svc/secrets', async () => {
    const acme = await sandbox({ namespace: 'acme' });
    try {
      const call = caller(acme.url, 'admin-token');
      expect((await call('POST', '/v2/acme/secrets', { alias: 'k', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(200);
      const l = await call<{ secrets: Secret[] }>('GET', '/v2/acme/secrets');
      expect(l.status).toBe(200);
      expect(aliases(l.body.secrets)).toEqual(['k']);
      const old = await call('GET', '/v2/svc/secrets');
      expect(old.status).toBe(404);
      expect(old.body).toEqual({ message: expect.any(String) });
      expect((await call('POST', '/v2/svc/secrets', { alias: 'k2', value: 'v', allowed_workspaces_type: 'ALL' })).status).toBe(404);
    } finally {
      await acme.close();
      await rm(acme.dataDir, { recursive: true, force: true });
    }
  });
});
