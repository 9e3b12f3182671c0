// Chrome-side cost of one snapshot read, three ways, on plain generated pages the walker answers
// for (ADR 0018): Chrome's accessibility tree (`Accessibility.getFullAXTree`, abx's reference
// path), the in-page walker (`crates/engine/src/snapshot/walker.js` in an isolated world, as a
// snapshot runs it: no DOM.describeNode), and Playwright's `locator('body').ariaSnapshot()`.
// Medians of warm runs (the first walk of each document, which numbers its nodes, apart); the Rust side (decoding and
// rendering) is not included. Usage: [FIXTURE=http://127.0.0.1:PORT] node benches/walker/walker.mjs [runs]
import { createRequire } from 'module';
import fs from 'fs';
import http from 'http';
import path from 'path';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(process.env.PLAYWRIGHT_CORE_DIR || '/work/upstream/node_modules/');
const { chromium } = require('playwright-core');
const walkerSource = fs.readFileSync(path.join(here, '../../crates/engine/src/snapshot/walker.js'), 'utf8');
const runs = Number(process.argv[2] || 5);

// The same pages as tests/snapshot_walker.rs.
function list(n) {
  let rows = '';
  for (let i = 0; i < n; i++) rows += `<li class="row"><input type="checkbox" id="c${i}"><label for="c${i}">Task ${i}</label> <a href="/item/${i}">Open ${i}</a> <button type="button">Delete</button></li>\n`;
  return `<!doctype html><html><head><title>List ${n}</title></head><body><h1>Tasks</h1><main><ul>${rows}</ul></main></body></html>`;
}
function shop(n) {
  let cards = '';
  for (let i = 0; i < n; i++) cards += `<article class="card"><img src="data:," alt="Product ${i}"><h3><a href="/p/${i}">Product ${i}</a></h3><p class="price">$${Math.floor(i * 137 / 100)}.${String(i * 37 % 100).padStart(2, '0')}</p><p>Great product number ${i} for you.</p><button>Add to cart</button></article>\n`;
  return `<!doctype html><html><head><title>Shop</title><style>.card{margin:4px}</style></head><body><header><nav><a href="/">Home</a> <a href="/cart">Cart</a></nav></header><main><h1>Shop</h1><section class="grid">${cards}</section></main><footer>Footer</footer></body></html>`;
}
function article(n) {
  let body = '';
  for (let p = 0; p < n; p++) {
    if (p % 5 === 0) body += `<h2>Section ${p / 5}</h2>\n`;
    body += `<p>Paragraph ${p} has <em>some</em> text and `;
    for (let k = 0; k < 5; k++) body += `<a href="/ref/${p}/${k}">link ${p}.${k}</a>, `;
    body += `and <strong>more</strong> words.</p>\n`;
    if (p % 20 === 10) {
      body += `<table><caption>Table ${p}</caption><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody>`;
      for (let r = 0; r < 10; r++) body += `<tr><td>Row ${r}</td><td>${r * 3}</td></tr>`;
      body += `</tbody></table>\n`;
    }
    if (p % 20 === 15) body += `<ul><li>First point</li><li>Second <a href="/x">point</a><ol><li>inner one</li><li>inner two</li></ol></li></ul>\n`;
  }
  return `<!doctype html><html lang="en"><head><title>Article</title></head><body><main><article><h1>Long article</h1>\n${body}</article></main></body></html>`;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const n = Number(url.searchParams.get('n') || 100);
  const html = url.pathname === '/list' ? list(n) : url.pathname === '/shop' ? shop(n) : article(n);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROME || '/usr/bin/chromium-headless-shell',
  args: ['--no-sandbox'],
});
const page = await browser.newPage();
const cdp = await page.context().newCDPSession(page);

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
async function time(f) { const t = performance.now(); const r = await f(); return [performance.now() - t, r]; }

// The walker as a snapshot runs it: in an isolated world of the document (made once per
// document), keeping the nodes it numbers; no DOM.describeNode (backendNodeIds are resolved only
// for the refs an action uses).
let world = null;
async function walker() {
  if (world === null) {
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const made = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'abx-snapshot-watch' });
    world = made.executionContextId;
  }
  const walked = await cdp.send('Runtime.evaluate', { expression: `${walkerSource}.call(document)`, contextId: world, returnByValue: true });
  const answer = JSON.parse(walked.result.value);
  if (answer[0] !== 'ok') throw new Error('walker refused: ' + answer[1]);
  return [answer[1].length, walked.result.value.length];
}

const pages = [
  ['list 3,000 rows', '/list?n=3000'],
  ['shop 1,200 cards', '/shop?n=1200'],
  ['article 500 paragraphs (2,500 links, 6 tables)', '/article?n=500'],
];
const scaling = [100, 400, 1000, 2000].map((n) => [`list n=${n}`, `/list?n=${n}`]);
// The fixture site's large pages the walker answers for, when FIXTURE is its origin.
if (process.env.FIXTURE) {
  pages.push(['fixture /large/list (n=3,000)', `${process.env.FIXTURE}/large/list`]);
  pages.push(['fixture /large/grid (n=1,000 rows of 7 cells)', `${process.env.FIXTURE}/large/grid`]);
  pages.push(['fixture /large/shop (n=1,200 cards)', `${process.env.FIXTURE}/large/shop`]);
  pages.push(['fixture /large/article (n=500: 2,500 links)', `${process.env.FIXTURE}/large/article`]);
}
console.log(`| page | AX nodes | walker nodes | getFullAXTree ms | walker first walk ms | walker ms | Playwright ariaSnapshot ms | walker / Playwright |`);
console.log(`|---|---|---|---|---|---|---|---|`);
for (const [label, route] of [...pages, ...scaling]) {
  await page.goto(route.startsWith('http') ? route : base + route);
  world = null;
  // The first walk of a document numbers every node it keeps; later ones only look them up.
  const [first] = await time(walker);
  const ax = [], wk = [], pw = [];
  let axNodes = 0, wkNodes = 0;
  for (let i = 0; i < runs + 1; i++) {
    const [a, tree] = await time(() => cdp.send('Accessibility.getFullAXTree'));
    const [w, [count]] = await time(walker);
    const [p] = await time(() => page.locator('body').ariaSnapshot({ timeout: 120000 }));
    axNodes = tree.nodes.length; wkNodes = count;
    if (i > 0) { ax.push(a); wk.push(w); pw.push(p); }
  }
  const [a, w, p] = [median(ax), median(wk), median(pw)];
  console.log(`| ${label} | ${axNodes} | ${wkNodes} | ${a.toFixed(0)} | ${first.toFixed(0)} | ${w.toFixed(0)} | ${p.toFixed(0)} | ${(w / p).toFixed(2)} |`);
}
await browser.close();
server.close();
