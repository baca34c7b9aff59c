// Activity screen benchmark (issue 5): 100,000 queued rows in Debian's Chromium through a real
// `docsync serve`. Reports time to first render (navigation start -> first queue row with a file
// name), frame work while scrolling (rAF start -> after that frame's rendering, p50/p95), the rAF
// interval p95 (dropped frames), and the renderer's JS heap. Baseline in the same run: the same
// scroll driver on a plain page with a 100-row list, as a ratio. Targets: first render < 500 ms,
// p95 frame < 16 ms.
//   npm run bench:activity [-- --rows 100000 --frames 600]
import { chromium, type Page } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openStore, STORE_FILE } from '../electron/engine/store/index.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const ROWS = arg('rows', 100_000);
const FRAMES = arg('frames', 600);
const CLI = fileURLToPath(new URL('../electron/cli/main.js', import.meta.url));
const CHROMIUM = process.env.DOCSYNC_CHROMIUM ?? '/usr/bin/chromium';

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

/** Scrolls `selector` by a mix of steady steps and jumps, one per frame; returns per-frame work and rAF intervals. */
async function scrollFrames(page: Page, selector: string, frames: number): Promise<{ work: number[]; interval: number[] }> {
  return page.evaluate(
    `new Promise((resolve) => {
      const el = document.querySelector(${JSON.stringify(selector)});
      const work = [], interval = [];
      let last = 0, n = 0, seed = 7;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const ch = new MessageChannel();
      let start = 0;
      ch.port1.onmessage = () => { work.push(performance.now() - start); };
      const frame = (t) => {
        if (last) interval.push(t - last);
        last = t;
        start = performance.now();
        const max = el.scrollHeight - el.clientHeight;
        // Every 50th frame jumps somewhere far (rows not yet fetched); otherwise a steady fling.
        el.scrollTop = n % 50 === 49 ? Math.floor(rnd() * max) : Math.min(max, el.scrollTop + 900);
        if (el.scrollTop >= max) el.scrollTop = 0;
        ch.port2.postMessage(0);
        if (++n < ${frames}) requestAnimationFrame(frame); else setTimeout(() => resolve({ work, interval }), 50);
      };
      requestAnimationFrame(frame);
    })`,
  ) as Promise<{ work: number[]; interval: number[] }>;
}

const root = await mkdtemp(join(tmpdir(), 'docsync-bench-activity-'));
const home = join(root, 'home');
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
let serve: ReturnType<typeof spawn> | undefined;
try {
  // 100,000 files waiting in the queue (dropped by hand: no folder, so the engine leaves them be).
  const store = openStore(join(home, STORE_FILE));
  const ins = store.db.prepare("INSERT INTO files (folder_id, path, size, mtime_ms, state, original_name, created_ms, updated_ms) VALUES (NULL, ?, ?, ?, 'queued', ?, ?, ?)");
  const t = Date.now();
  store.db.transaction(() => {
    for (let i = 0; i < ROWS; i++) ins.run(`/scans/batch-${Math.floor(i / 1000)}/scan-${i}.pdf`, 20_000 + (i % 5000), t, `scan-${i}.pdf`, t, t);
  })();
  store.close();

  serve = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env: { ...process.env, DOCSYNC_HOME: home, DOCSYNC_URL: '', DOCSYNC_TOKEN: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const openUrl = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: serve!.stdout! });
    rl.on('line', (l) => {
      const m = /^ui listening on (\S+)$/.exec(l);
      if (m) resolve(m[1] as string);
    });
    serve!.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const base = new URL(openUrl).origin;
  const cookie = ((await fetch(openUrl, { redirect: 'manual' })).headers.get('set-cookie') ?? '').split(';')[0]!.split('=');

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await ctx.addCookies([{ name: cookie[0]!, value: cookie[1]!, url: base }]);
  const page = await ctx.newPage();
  // Records when the first row with a file name is in the DOM, against navigation start.
  await page.addInitScript(`new MutationObserver((_, obs) => {
      const row = document.querySelector('[role="grid"][aria-label="Queue"] [role="row"] .name');
      if (row && /scan-\\d+\\.pdf/.test(row.textContent || '')) { window.__firstRow = performance.now(); obs.disconnect(); }
    }).observe(document, { childList: true, subtree: true, characterData: true });`);
  const firsts: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto(`${base}/`);
    await page.waitForFunction('window.__firstRow !== undefined', undefined, { timeout: 30_000 });
    firsts.push((await page.evaluate('window.__firstRow')) as number);
  }
  const total = await page.locator('[role="grid"][aria-label="Queue"]').getAttribute('aria-rowcount');
  if (Number(total) !== ROWS + 1) throw new Error(`the queue shows ${total} rows, expected ${ROWS + 1}`);

  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  const app = await scrollFrames(page, '[role="grid"][aria-label="Queue"]', FRAMES);
  await cdp.send('HeapProfiler.collectGarbage');
  const metrics = (await cdp.send('Performance.getMetrics')).metrics;
  const heapMb = (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1048576;
  const rowsInDom = await page.locator('[role="grid"][aria-label="Queue"] [role="row"]').count();

  // Baseline: the same driver on a plain page, a scroller with 100 plain rows.
  const plain = await ctx.newPage();
  await plain.setContent(`<div id="s" style="height:600px;overflow:auto">${Array.from({ length: 100 }, (_, i) => `<div style="height:40px">row ${i}</div>`).join('')}</div>`);
  const floor = await scrollFrames(plain, '#s', FRAMES);

  const median = pct(firsts, 50);
  console.log(`activity screen, ${ROWS.toLocaleString('en')} queued rows, Chromium ${browser.version()}, ${FRAMES} frames of scrolling`);
  console.log(`  first render (nav start -> first row): median ${median.toFixed(0)} ms (runs: ${firsts.map((x) => x.toFixed(0)).join(', ')})   target < 500 ms`);
  console.log(`  frame work while scrolling: p50 ${pct(app.work, 50).toFixed(1)} ms, p95 ${pct(app.work, 95).toFixed(1)} ms   target p95 < 16 ms`);
  console.log(`  rAF interval: p50 ${pct(app.interval, 50).toFixed(1)} ms, p95 ${pct(app.interval, 95).toFixed(1)} ms`);
  console.log(`  baseline (plain 100-row list, same driver): frame work p95 ${pct(floor.work, 95).toFixed(1)} ms, rAF p95 ${pct(floor.interval, 95).toFixed(1)} ms; ratio app/baseline p95 work ${(pct(app.work, 95) / Math.max(0.1, pct(floor.work, 95))).toFixed(1)}`);
  console.log(`  renderer JS heap after scrolling (after GC): ${heapMb.toFixed(1)} MB; rows in the DOM: ${rowsInDom}`);
} finally {
  await browser.close();
  serve?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await rm(root, { recursive: true, force: true });
}
