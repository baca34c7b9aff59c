/** Polls `fn` until it holds; fails with `what` after `ms`, and with what `state` says then (what was still missing). */
export async function waitUntil(fn: () => boolean | Promise<boolean>, what: string, ms = 20_000, state?: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}${state ? `; then: ${state()}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
