// Notices (issue 26, item 4): a name in a notice is shown escaped, so it cannot make one notice look
// like two; and a notice said at start, before any host listens, still reaches the first listener.
import { afterEach, describe, expect, it } from 'vitest';
import type { Notice } from '../../../../shared/ui/views.js';
import { coreEnv, type CoreEnv } from '../../../helpers/app-core.js';

let env: CoreEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('AppCore notices', () => {
  it('escapes control characters in the message (one line) and in the detail (its lines kept)', async () => {
    env = await coreEnv();
    const seen: Notice[] = [];
    env.core.events.on('notice', (n) => seen.push(n));
    env.core.notice('warn', 'DocSync could not move x\nerror: forged.pdf out of the hot folder', { detail: 'first\nsecond \u001b[31m' });
    await Promise.resolve();
    expect(seen.at(-1)).toMatchObject({ msg: 'DocSync could not move x\\nerror: forged.pdf out of the hot folder', detail: 'first\nsecond \\x1b[31m' });
  });

  it('delivers the notices said before anyone listened once a host listens, once', async () => {
    env = await coreEnv();
    env.core.notice('warn', 'said at start');
    const first: string[] = [];
    const second: string[] = [];
    env.core.events.on('notice', (n) => first.push(n.msg));
    env.core.events.on('notice', (n) => second.push(n.msg));
    await new Promise((r) => setImmediate(r));
    expect(first).toEqual(['said at start']);
    expect(second).toEqual(['said at start']);
    env.core.notice('info', 'later');
    expect(first).toEqual(['said at start', 'later']);
  });
});
