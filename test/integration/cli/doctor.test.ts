// `docsync doctor` (issue 27, section 4): the way to a real sandbox walked step by step, over HTTP and
// HTTPS with the test's certificates; the first failing step named with what helps, the rest not
// tried; exit 0 only when every step passed; no token or proxy password in what it prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorStep } from '../../../electron/engine/service/doctor.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { sandbox } from '../../helpers/sandbox.js';
import { makeTestCerts, tlsSandbox, type TestCerts } from '../../helpers/tls-certs.js';
import { buildIfNeeded, cliEnv, type Cli } from './cli-env.js';

let plain: RunningSandbox;
let acme: RunningSandbox;
let tls: RunningSandbox;
let expired: RunningSandbox;
let certs: TestCerts;
let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  certs = makeTestCerts();
  [plain, acme, tls, expired] = await Promise.all([sandbox(), sandbox({ namespace: 'acme' }), tlsSandbox(certs, 'good'), tlsSandbox(certs, 'expired')]);
  cli = await cliEnv();
}, 120_000);
afterAll(async () => {
  for (const s of [plain, acme, tls, expired]) await s?.close();
  certs?.remove();
  await cli?.close();
});

const doctor = async (env: Record<string, string>) => {
  const r = await cli.run(['doctor', '--json'], { env });
  const out = JSON.parse(r.stdout) as { ok: boolean; steps: DoctorStep[] };
  const text = await cli.run(['doctor'], { env });
  return { code: r.code, ...out, text: text.stdout, textCode: text.code, outcomes: Object.fromEntries(out.steps.map((s) => [s.step, s.outcome])) };
};
const after = (steps: DoctorStep[], step: string) => steps.slice(steps.findIndex((s) => s.step === step) + 1);

describe('docsync doctor', () => {
  it('every step passes on a reachable service with a good token: exit 0, in text and JSON, and the token is nowhere', async () => {
    const d = await doctor({ DOCSYNC_URL: plain.url, DOCSYNC_TOKEN: 'admin-token' });
    expect(d.code).toBe(0);
    expect(d.textCode).toBe(0);
    expect(d.ok).toBe(true);
    expect(d.outcomes).toEqual({ name: 'ok', proxy: 'skipped', connect: 'ok', tls: 'skipped', http: 'ok', token: 'ok', context: 'skipped', namespace: 'ok' });
    expect(d.text).toMatch(/^ok {6}connection {1}127\.0\.0\.1:\d+ accepted the connection in \d+ ms$/m);
    expect(d.text.trimEnd().split('\n').at(-1)).toBe('Every step passed.');
    expect(d.text + JSON.stringify(d.steps)).not.toContain('admin-token');
  });

  it('a wrong token fails the token step in the shared words, after HTTP passed; the rest is not tried; exit 1', async () => {
    const d = await doctor({ DOCSYNC_URL: plain.url, DOCSYNC_TOKEN: 'not-a-token-anyone-has' });
    expect(d.code).toBe(1);
    expect(d.outcomes.http).toBe('ok');
    expect(d.steps.find((s) => s.step === 'token')).toMatchObject({ outcome: 'failed', said: expect.stringMatching(/did not accept the sign-in/) });
    expect(after(d.steps, 'token').every((s) => s.outcome === 'skipped' && s.said === 'not tried: an earlier step failed')).toBe(true);
    expect(d.text).toMatch(/^The token step failed\.$/m);
    expect(d.text).not.toContain('not-a-token-anyone-has');
  });

  it('no token at all: the walk goes as far as HTTP and says to sign in', async () => {
    const d = await doctor({ DOCSYNC_URL: plain.url });
    expect(d.steps.find((s) => s.step === 'token')).toMatchObject({ outcome: 'failed', said: 'DocSync has no token for this service', help: expect.stringMatching(/docsync login/) });
  });

  it('the context and the namespace are checked on their own', async () => {
    const ctx = await doctor({ DOCSYNC_URL: plain.url, DOCSYNC_TOKEN: 'admin-token', DOCSYNC_CONTEXT: 'another-org' });
    expect(ctx.steps.find((s) => s.step === 'context')).toMatchObject({ outcome: 'failed', said: 'the service accepted the token but not with the context another-org' });
    const ns = await doctor({ DOCSYNC_URL: acme.url, DOCSYNC_TOKEN: 'admin-token', DOCSYNC_NAMESPACE: 'other' });
    expect(ns.outcomes.context).toBe('skipped');
    expect(ns.steps.find((s) => s.step === 'namespace')).toMatchObject({ outcome: 'failed', said: 'the service does not know the namespace other' });
    expect((await doctor({ DOCSYNC_URL: acme.url, DOCSYNC_TOKEN: 'admin-token', DOCSYNC_NAMESPACE: 'acme' })).ok).toBe(true);
  });

  it('nothing listening: the connection step fails, saying it was refused and what helps', async () => {
    const port = new URL(plain.url).port;
    const closed = `http://127.0.0.1:${Number(port) === 1 ? 2 : 1}`;
    const d = await doctor({ DOCSYNC_URL: closed, DOCSYNC_TOKEN: 'admin-token' });
    expect(d.steps.find((s) => s.step === 'connect')).toMatchObject({ outcome: 'failed', said: expect.stringMatching(/nothing accepts connections there \(refused\)$/), help: expect.stringMatching(/DOCSYNC_URL/) });
  });

  it('an unreachable proxy fails the proxy step, never as the service; its password is not printed', async () => {
    const d = await doctor({ DOCSYNC_URL: plain.url, DOCSYNC_TOKEN: 'admin-token', DOCSYNC_PROXY: 'http://someone:proxy-secret@127.0.0.1:1' });
    expect(d.steps.find((s) => s.step === 'proxy')).toMatchObject({ outcome: 'failed', said: expect.stringMatching(/^DocSync cannot reach the proxy at 127\.0\.0\.1:1: /) });
    expect(d.text + JSON.stringify(d.steps)).not.toContain('proxy-secret');
  });

  it('HTTPS: an untrusted certificate fails the TLS step with how to add the CA; with the CA every step passes and the certificate is described', async () => {
    const untrusted = await doctor({ DOCSYNC_URL: tls.url, DOCSYNC_TOKEN: 'admin-token' });
    expect(untrusted.steps.find((s) => s.step === 'tls')).toMatchObject({ outcome: 'failed', said: expect.stringMatching(/is not trusted .*add its CA with "docsync login --url URL --ca-file FILE"/) });
    expect(untrusted.text).not.toMatch(/cannot be reached/);
    const trusted = await doctor({ DOCSYNC_URL: tls.url, DOCSYNC_TOKEN: 'admin-token', DOCSYNC_CA_FILE: certs.caFile });
    expect(trusted.ok).toBe(true);
    expect(trusted.steps.find((s) => s.step === 'tls')?.said).toMatch(/^trusted: issued to 127\.0\.0\.1, localhost by DocSync Test Company CA, valid \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/);
    const old = await doctor({ DOCSYNC_URL: expired.url, DOCSYNC_TOKEN: 'admin-token', DOCSYNC_CA_FILE: certs.caFile });
    expect(old.steps.find((s) => s.step === 'tls')).toMatchObject({ outcome: 'failed', said: expect.stringMatching(/expired/) });
  });
});
