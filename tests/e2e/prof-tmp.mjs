import { chromium } from 'playwright-core';
import { done, serve } from './common.mjs';
const server = await serve('/tmp/distprof');
const base = `http://127.0.0.1:${server.address().port}/`;
const ctx = await chromium.launchPersistentContext('/tmp/profprof'+Date.now(), { executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox','--disable-gpu'], viewport: {width:1440,height:1000}});
const page = ctx.pages()[0];
await page.goto(base + '#ex=paper/fig3');
await page.waitForFunction(done, null, { timeout: 120000 });
const fp0 = await page.inputValue('#fp');
const cdp = await ctx.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
await cdp.send('Profiler.start');
const N = 8;
for (let i = 0; i < N; i++) {
  await page.fill('#fp', i % 2 ? fp0 : fp0 + '// x\n');
  await page.waitForTimeout(50);
  await page.waitForFunction(done, null, { timeout: 120000, polling: 5 });
}
const { profile } = await cdp.send('Profiler.stop');
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
const name = (n) => (n.callFrame.functionName || '(anon)').replace(/::h[0-9a-f]{16}/, '').slice(0, 110);
const self = new Map(), incl = new Map();
profile.samples.forEach((s, i) => {
  const t = profile.timeDeltas[i] || 0;
  const n = byId.get(s); self.set(name(n), (self.get(name(n)) || 0) + t);
  const seen = new Set(); let id = s;
  while (id !== undefined) { const k = name(byId.get(id)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) || 0) + t); } id = parent.get(id); }
});
const show = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).forEach(([f, t]) => console.log((t / 1000 / N).toFixed(1).padStart(7), 'ms/edit', f));
console.log('--- self'); show(self, 12);
const callers = new Map();
profile.samples.forEach((s, i) => {
  const n = byId.get(s); const nm = name(n);
  if (!/scrollTop|getBoundingClientRect|offsetWidth|clientWidth|clientHeight|scrollLeft/.test(nm)) return;
  const chain = []; let id = parent.get(s);
  while (id !== undefined && chain.length < 12) { const k = name(byId.get(id)); if (/hoist_web|yew::functional::hooks::use_effect|gloo/.test(k)) chain.push(k); id = parent.get(id); }
  const key = nm + ' <= ' + chain.slice(0, 3).join(' <= ');
  callers.set(key, (callers.get(key) || 0) + (profile.timeDeltas[i] || 0));
});
console.log('--- layout reads'); [...callers].sort((a, b) => b[1] - a[1]).slice(0, 12).forEach(([f, t]) => console.log((t / 1000 / N).toFixed(1).padStart(7), f));

await ctx.close(); server.close();
