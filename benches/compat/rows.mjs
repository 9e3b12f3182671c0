// The rows of the side-by-side harness, in the order they run. Each row is one upstream-documented
// command (or a group of subcommands) and runs in both binaries; `ref` is its row in
// /work/shared/contract/compat-20261201.md (the last manual run).
//
// A row:
//   id       stable name (expected.mjs and docs/compat.md refer to it)
//   area     Navigate, Read, Interact, …
//   cmd      what it covers, as shown in the table (Markdown)
//   page     opened first (setup), e.g. '/fixture.html'
//   setup    steps run first: only their exit codes compare
//   steps    the commands compared: exit code, normalised stdout, stderr (without upstream's
//            `[agent-browser] …` launch notes)
//   check    follow-up steps that show the effect (compared the same way)
//   teardown steps run last, not compared; `close: true` closes the row's session after it
//   session  AGENT_BROWSER_SESSION for every command of the row (default: the shared `default`);
//            give rows that change launch settings or emulation a session of their own
//   env      extra environment for every command (a null value removes a variable)
//   timeout  per-command deadline in ms (default 20 s)
//   notProvided  RegExp: what in ours' output means "not provided" (default: Not yet
//            implemented / not supported by abx / Unsupported engine)
//   upstream 'skip' with `expect(ours) → null | why`: commands upstream must not run here
//            (install, upgrade: they download); ours is checked against upstream's docs instead
//
// A step is a command line ('get text h1'; placeholders {SITE}, {SITE2} (the same server as
// another site), {PORT}, {TMP} and {HOME} (each binary's own)), or an object
// { run: line | argv, stdin, env, timeout, label, stdout: 'text' | 'ignore', stderr: 'raw' |
// 'ignore', lines: 'unordered', norm: [[RegExp, replacement]…], volatile: RegExp (JSON keys whose
// values are not compared), refs: 'absolute' (compare ref numbers as printed; by default refs are
// renumbered in order of appearance, so rows do not depend on how many refs earlier rows used) },
// or a `fn` step from lib/steps.mjs. `compare: {…}` on a row sets these for all its steps.
//
// Adding a row: copy a neighbour, give it a new id, run `benches/compat/run.sh --only <id>`, look
// at target/compat/compat-details.md; if the difference is deliberate, add the id to expected.mjs
// with its reason.

import { withRef, writeFile, pause, file, withIdFrom, helpHasExamples } from './lib/steps.mjs';
import { VOLATILE_KEY_WITH_LIFECYCLE } from './lib/compare.mjs';

const b64 = (s) => Buffer.from(s).toString('base64');

/** Request ids (`[1234.5]`, `"id":"1234.5"`) and confirmation ids differ per run. */
const IDS = [
  [/\b\d{3,}\.\d+\b/g, 'REQID'],
  [/\b(r\d{4,}|c_[0-9a-f]{6,})\b/g, 'CONFIRMID'],
];

/** Numbers in measurements (vitals, timings, sizes). */
const NUMBERS = [[/\d+(\.\d+)?/g, 'N']];

export const ROWS = [
  // ---- Navigate -----------------------------------------------------------------------------
  { id: 'nav.open', area: 'Navigate', cmd: '`open <url>`', ref: 1, steps: ['open {SITE}/fixture.html'], check: ['get url', 'get title'] },
  { id: 'nav.goto-navigate', area: 'Navigate', cmd: '`goto` / `navigate` (aliases)', ref: 1, steps: ['goto {SITE}/page1.html', 'navigate {SITE}/page2.html'], check: ['get title'] },
  {
    id: 'nav.open-blank', area: 'Navigate', cmd: '`open` (no URL) on a new session', ref: 2, session: 'blank',
    steps: [{ run: 'open', stderr: 'raw' }], check: ['get url'], close: true,
  },
  { id: 'nav.open-bad-url', area: 'Navigate', cmd: '`open` of an unreachable URL', steps: ['open http://127.0.0.1:9/'] },
  {
    id: 'nav.back-forward-reload', area: 'Navigate', cmd: '`back` / `forward` / `reload`', ref: 3, page: '/page1.html',
    setup: ['open {SITE}/page2.html'], steps: ['back', 'forward', 'reload'], check: ['get url'],
  },
  { id: 'nav.pushstate', area: 'Navigate', cmd: '`pushstate <url>`', ref: 4, page: '/fixture.html', steps: ['pushstate {SITE}/fixture.html?view=2'], check: ['get url', 'get title'] },
  { id: 'nav.read', area: 'Navigate', cmd: '`read` (the active tab as text)', ref: 5, page: '/article.html', steps: ['read'] },
  { id: 'nav.read-url', area: 'Navigate', cmd: '`read <url>`', ref: 5, page: '/fixture.html', steps: ['read {SITE}/article.html'], check: ['get url'] },
  { id: 'nav.read-outline', area: 'Navigate', cmd: '`read --outline`', ref: 5, page: '/article.html', steps: ['read --outline'] },
  {
    id: 'nav.connect', area: 'Navigate', cmd: '`connect <ws-url>`, then commands on the attached page', ref: 7,
    setup: ['--session cdphost open {SITE}/page1.html'],
    steps: [withIdFrom('--session cdphost get cdp-url', '(ws://\\S+)', '--session attached connect {ID}', '--session attached connect <ws-url of cdphost>')],
    check: ['--session attached get url', '--session attached get title'],
    teardown: ['--session attached close', '--session cdphost close'],
  },
  { id: 'nav.connect-bad-port', area: 'Navigate', cmd: '`connect` to a closed port', ref: 7, session: 'badport', steps: ['connect 9'], close: true },

  // ---- Read ---------------------------------------------------------------------------------
  { id: 'snap.full', area: 'Read', cmd: '`snapshot`', ref: 8, page: '/fixture.html', steps: ['snapshot'] },
  { id: 'snap.interactive', area: 'Read', cmd: '`snapshot -i`', ref: 8, page: '/fixture.html', steps: ['snapshot -i'] },
  { id: 'snap.compact-depth', area: 'Read', cmd: '`snapshot -c`, `-d 1`', ref: 8, page: '/fixture.html', steps: ['snapshot -c', 'snapshot -d 1'] },
  { id: 'snap.selector-urls', area: 'Read', cmd: '`snapshot -s <sel>`, `-i -u`', ref: 8, page: '/fixture.html', steps: ['snapshot -s form', 'snapshot -i -u'] },
  { id: 'snap.iframes', area: 'Read', cmd: '`snapshot -i` with iframes inlined', ref: 49, page: '/iframe.html', steps: ['snapshot -i'] },
  {
    id: 'snap.ref-numbering', area: 'Read', cmd: 'ref numbers across pages (new session)', ref: 8, session: 'refs',
    steps: ['open {SITE}/page1.html', { run: 'snapshot -i', refs: 'absolute' }, 'open {SITE}/page2.html', { run: 'snapshot -i', refs: 'absolute' }], close: true,
  },
  {
    id: 'snap.delta-change', area: 'Read', cmd: '`snapshot --delta` after a button is renamed', ref: 9, session: 'delta', page: '/form.html', setup: ['wait #late'],
    steps: ['snapshot --delta', 'snapshot --delta', 'eval "document.querySelector(\'#submit\').textContent = \'Send\'"', '--json snapshot --delta', 'snapshot --delta --full'], close: true,
  },
  { id: 'snap.json', area: 'Read', cmd: '`--json snapshot -i`', ref: 8, page: '/fixture.html', steps: ['--json snapshot -i'] },
  { id: 'snap.delta', area: 'Read', cmd: '`snapshot -i --delta` (twice), `--delta --full`', ref: 9, page: '/fixture.html', steps: ['snapshot -i --delta', 'snapshot -i --delta', 'snapshot -i --delta --full'] },

  // ---- Interact -----------------------------------------------------------------------------
  { id: 'act.click-ref', area: 'Interact', cmd: '`click @ref` (a link)', ref: 10, page: '/fixture.html', steps: [withRef('click', 'link "First link"')], check: ['get url'] },
  { id: 'act.click-css', area: 'Interact', cmd: '`click <css>`', ref: 10, page: '/fixture.html', steps: ['click #agree'], check: ['is checked #agree'] },
  { id: 'act.click-missing', area: 'Interact', cmd: '`click` of a missing element', page: '/fixture.html', steps: ['click #missing'] },
  {
    id: 'act.click-new-tab', area: 'Interact', cmd: '`click --new-tab`', ref: 11, session: 'newtab', page: '/fixture.html',
    steps: [withRef('click', 'link "Second link"', '--new-tab')], check: ['get url', 'tab list'], close: true,
  },
  {
    id: 'act.click-stale-ref', area: 'Interact', cmd: '`click @ref` after its element was replaced', ref: 12, page: '/fixture.html',
    steps: [{
      label: 'snapshot -i; replace the checkbox; click @ref',
      fn: async (h) => {
        const snap = await h.run('snapshot -i');
        const ref = /checkbox "I agree" \[[^\]]*ref=(e\d+)/.exec(snap.stdout)?.[1] ?? 'e-none';
        await h.run(['eval', "const a = document.querySelector('#agree'); a.replaceWith(a.cloneNode(true)); 'replaced'"]);
        return h.run(['click', `@${ref}`]);
      },
    }],
    check: ['is checked #agree'],
  },
  { id: 'act.click-human', area: 'Interact', cmd: '`click --human`', ref: 13, page: '/events.html', steps: ['click #target --human'], check: ['eval "window.__counts.mousemove > 3"'] },
  { id: 'act.input-mode-human', area: 'Interact', cmd: '`--input-mode human click`', ref: 13, page: '/events.html', steps: ['--input-mode human click #target'], check: ['eval "window.__counts.mousemove > 3"'] },
  { id: 'act.dblclick', area: 'Interact', cmd: '`dblclick`', ref: 14, page: '/events.html', steps: ['dblclick #target'], check: ['get text #counts'] },
  { id: 'act.input-mode-human-hover', area: 'Interact', cmd: '`--input-mode human hover`', ref: 13, page: '/events.html', setup: ['mouse move 5 400'], steps: ['--input-mode human hover #target'], check: ['eval "window.__counts.mousemove > 3"'] },
  { id: 'act.input-mode-human-dblclick', area: 'Interact', cmd: '`--input-mode human dblclick`', ref: 14, page: '/events.html', setup: ['mouse move 5 400'], steps: ['--input-mode human dblclick #target'], check: ['eval "window.__counts.mousemove > 3 && window.__counts.dblclick === 1"'] },
  { id: 'act.fill', area: 'Interact', cmd: '`fill`', ref: 15, page: '/form.html', steps: ['fill #name "Ada Lovelace"'], check: ['get value #name', 'get text #name-mirror'] },
  {
    id: 'act.type', area: 'Interact', cmd: '`type` (`--delay`, `--clear`)', ref: 15, page: '/form.html',
    steps: ['type #name abc', 'type #name def --delay 5', 'type #email x@y.z', 'type #email a@b.c --clear'], check: ['get value #name', 'get value #email'],
  },
  {
    id: 'act.press', area: 'Interact', cmd: '`press` / `key`, combinations', ref: 16, page: '/form.html',
    setup: ['focus #name'], steps: ['press a', 'key b', 'press Shift+C', 'press Backspace'], check: ['get value #name', 'eval "window.__keys.join(\',\')"'],
  },
  {
    id: 'act.keydown-keyup', area: 'Interact', cmd: '`keydown` / `keyup`', ref: 16, page: '/form.html',
    setup: ['focus #name'], steps: ['keydown Shift', 'press x', 'keyup Shift'], check: ['get value #name', 'eval "window.__keys.join(\',\')"'],
  },
  {
    id: 'act.keyboard', area: 'Interact', cmd: '`keyboard type` / `keyboard inserttext`', ref: 16, page: '/form.html',
    setup: ['focus #bio'], steps: ['keyboard type "hi there"', 'keyboard inserttext " (inserted)"'], check: ['get value #bio', 'eval "window.__keys.length"'],
  },
  {
    id: 'act.press-enter-submit', area: 'Interact', cmd: '`press Enter` that submits a form, then `get url`', ref: 17, page: '/login.html',
    setup: ['fill #username zed', 'fill #password pw', 'focus #password'], steps: ['press Enter'], check: ['get url'],
  },
  { id: 'act.hover-focus', area: 'Interact', cmd: '`hover`, `focus`', ref: 18, page: '/form.html', steps: ['hover #submit', 'focus #email'], check: ['eval "document.activeElement.id + \',\' + document.querySelector(\'#submit\').matches(\':hover\')"'] },
  { id: 'act.check-uncheck', area: 'Interact', cmd: '`check`, `uncheck`', ref: 18, page: '/form.html', steps: ['check #agree', 'check #color-green', 'uncheck #agree'], check: ['is checked #agree', 'is checked #color-green'] },
  { id: 'act.select', area: 'Interact', cmd: '`select` by value and by label', ref: 18, page: '/form.html', steps: ['select #size m', 'get value #size', 'select #size Large'], check: ['get value #size'] },
  { id: 'act.drag', area: 'Interact', cmd: '`drag <src> <dst>`', ref: 19, page: '/drag.html', steps: ['drag #src #dst'], check: ['get text #result'] },
  { id: 'act.drag-human', area: 'Interact', cmd: '`drag <src> <dst> --human`', ref: 19, page: '/drag.html', steps: ['drag #src #dst --human'], check: ['get text #result'] },
  {
    id: 'act.upload', area: 'Interact', cmd: '`upload <sel> <file>`', ref: 19, page: '/form.html',
    setup: [writeFile('{TMP}/upload.txt', 'upload me\n')], steps: ['upload #upload {TMP}/upload.txt'], check: ['eval "Array.from(document.querySelector(\'#upload\').files, f => f.name).join()"'],
  },
  { id: 'act.scroll', area: 'Interact', cmd: '`scroll down <px>`, `scroll up`', ref: 19, page: '/scroll.html', steps: ['scroll down 500', 'eval window.scrollY', 'scroll up 200'], check: ['eval window.scrollY'] },
  { id: 'act.scroll-selector', area: 'Interact', cmd: '`scroll --selector`', ref: 19, page: '/scroll.html', steps: ['scroll down 300 --selector body'], check: ['eval "window.scrollY > 0"'] },
  { id: 'act.scrollintoview', area: 'Interact', cmd: '`scrollintoview` / `scrollinto`', ref: 19, page: '/scroll.html', steps: ['scrollintoview #bottom', 'eval "window.scrollY > 4000"', 'scrollinto #top'], check: ['eval window.scrollY'] },
  { id: 'act.highlight', area: 'Interact', cmd: '`highlight` (and the outline it draws)', ref: 19, page: '/fixture.html', steps: ['highlight h1'], check: ['eval "getComputedStyle(document.querySelector(\'h1\')).outline"'] },
  {
    id: 'act.download', area: 'Interact', cmd: '`download <sel> <path>`', ref: 20, page: '/download.html',
    steps: ['download #dl {TMP}/dl/report.txt'], check: [file('{TMP}/dl/report.txt', 'text')],
  },
  { id: 'act.find-role', area: 'Interact', cmd: '`find role … --name`, `--exact`', ref: 21, page: '/form.html', steps: ['find role checkbox check --name "I agree"', 'find role button text --name Submit --exact'], check: ['is checked #agree'] },
  { id: 'act.find-text-label', area: 'Interact', cmd: '`find text … click`, `find label … fill`', ref: 21, page: '/page1.html', steps: ['find text "Go to page two" click', 'get url', 'open {SITE}/form.html', 'find label Email fill ada@example.com'], check: ['get value #email'] },
  {
    id: 'act.find-attrs', area: 'Interact', cmd: '`find placeholder|alt|title|testid`', ref: 21, page: '/locators.html',
    steps: ['find placeholder "Search docs" fill query', 'find alt "Fixture logo" click', 'find title "Close panel" click', 'find testid save-btn click'], check: ['get value #search', 'get text #result'],
  },
  { id: 'act.find-position', area: 'Interact', cmd: '`find first|last|nth … text|hover`', ref: 21, page: '/locators.html', steps: ['find first li.item text', 'find last li.item text', 'find nth 1 li.item text', 'find nth 2 li.item hover'], check: ['eval "document.querySelector(\'li.item:nth-child(3)\').matches(\':hover\')"'] },
  { id: 'act.find-miss', area: 'Interact', cmd: '`find` with no match (also `--exact`)', ref: 22, page: '/fixture.html', steps: ['find text "No such text" click', 'find role button click --name Nope --exact'] },
  { id: 'act.mouse', area: 'Interact', cmd: '`mouse move|down|up|wheel`', ref: 23, page: '/events.html', steps: ['mouse move 100 120', 'mouse down', 'mouse up', 'mouse wheel 100'], check: ['get text #counts'] },
  { id: 'act.mouse-steps', area: 'Interact', cmd: '`mouse move --steps`, `--human --seed`, `--duration`', ref: 13, page: '/events.html', steps: ['mouse move 300 200 --steps 10', 'eval window.__counts.mousemove', 'mouse move 50 50 --human --seed 42', 'mouse move 200 100 --duration 200 --steps 5'], check: ['eval "window.__counts.mousemove > 12"'] },
  { id: 'act.tap-swipe', area: 'Interact', cmd: '`tap`, `swipe`', ref: 24, page: '/events.html', steps: ['tap #target', 'swipe up 100'], check: ['get text #counts'] },
  { id: 'act.touch-events', area: 'Interact', cmd: '`tap`, `swipe` (the touch events a page sees)', ref: 24, page: '/touch.html', steps: ['tap #pad', 'swipe up 200'], check: ['eval "window.__touches.filter(function (e) { return e.indexOf(\'touchmove\') === 0 }).length > 3"', 'eval "window.__touches.map(function (e) { return e.split(\'@\')[0] }).filter(function (k) { return k !== \'touchmove\' }).join(\' \')"'] },
  { id: 'act.device-list', area: 'Interact', cmd: '`device list` (iOS, macOS only)', ref: 25, steps: ['device list'] },

  // ---- Wait ---------------------------------------------------------------------------------
  { id: 'wait.selector-ms', area: 'Wait', cmd: '`wait <sel>`, `wait <ms>`', ref: 26, page: '/form.html', steps: ['wait #late', 'wait 100'], check: ['is visible #late'] },
  { id: 'wait.text-url', area: 'Wait', cmd: '`wait --text`, `wait --url`', ref: 26, page: '/page1.html', steps: ['wait --text "Page One"', 'wait --url "**/page1.html"'] },
  { id: 'wait.load-fn', area: 'Wait', cmd: '`wait --load load|networkidle`, `--fn`', ref: 26, page: '/fixture.html', steps: ['wait --load load', 'wait --load networkidle', 'wait --fn "document.readyState === \'complete\'"'] },
  { id: 'wait.state', area: 'Wait', cmd: '`wait <sel> --state hidden|visible`', ref: 26, page: '/form.html', steps: ['wait #disabled-btn --state visible', 'wait #nope --state hidden'] },
  { id: 'wait.timeout', area: 'Wait', cmd: '`wait` timeouts (`--timeout`)', ref: 26, page: '/fixture.html', steps: ['wait #nope --timeout 1500', 'wait --text "never here" --timeout 1000'] },
  {
    id: 'wait.download', area: 'Wait', cmd: '`wait --download [path]`', ref: 27, page: '/download.html',
    steps: [{
      label: 'click #dl-late; wait --download <path>',
      fn: async (h) => {
        await h.run('click #dl-late');
        return h.run('wait --download {TMP}/dl/late.txt --timeout 5000');
      },
    }],
    check: [file('{TMP}/dl/late.txt', 'text')],
  },

  // ---- Capture ------------------------------------------------------------------------------
  { id: 'cap.screenshot', area: 'Capture', cmd: '`screenshot <path>`', page: '/fixture.html', steps: ['screenshot {TMP}/shot.png'], check: [file('{TMP}/shot.png', 'png')] },
  { id: 'cap.screenshot-full', area: 'Capture', cmd: '`screenshot --full`', page: '/scroll.html', steps: ['screenshot --full {TMP}/full.png'], check: [file('{TMP}/full.png', 'png')] },
  { id: 'cap.screenshot-default-path', area: 'Capture', cmd: '`screenshot` (no path)', page: '/fixture.html', steps: [{ run: 'screenshot', norm: [[/screenshot-[\w.-]+\.png/g, 'screenshot-N.png']] }] },
  {
    id: 'cap.screenshot-if-changed', area: 'Capture', cmd: '`screenshot --if-changed` (twice), `--threshold`', ref: 29, page: '/fixture.html',
    steps: ['screenshot --if-changed {TMP}/ic.png', 'screenshot --if-changed {TMP}/ic2.png', 'screenshot --threshold 0.5 {TMP}/ic3.png'], check: [file('{TMP}/ic2.png', 'png')],
  },
  {
    id: 'cap.screenshot-if-changed-json', area: 'Capture', cmd: '`--json screenshot --if-changed` (`changed`, `revision`, `pixelChangeRatio`)', ref: 29, page: '/page2.html',
    steps: ['--json screenshot --if-changed {TMP}/icj.png', '--json screenshot --if-changed {TMP}/icj2.png'],
  },
  { id: 'cap.screenshot-annotate', area: 'Capture', cmd: '`screenshot --annotate` (new session)', session: 'annotate', page: '/fixture.html', steps: [{ run: 'screenshot --annotate {TMP}/ann.png', refs: 'absolute' }], check: [file('{TMP}/ann.png', 'png')], close: true },
  { id: 'cap.screenshot-format', area: 'Capture', cmd: '`--screenshot-format jpeg --screenshot-quality`', ref: 89, page: '/fixture.html', steps: ['--screenshot-format jpeg --screenshot-quality 50 screenshot {TMP}/q.jpg'], check: [file('{TMP}/q.jpg', 'image')] },
  { id: 'cap.pdf', area: 'Capture', cmd: '`pdf <path>`', ref: 30, page: '/article.html', steps: ['pdf {TMP}/out.pdf'], check: [file('{TMP}/out.pdf', 'pdf')] },

  // ---- Script -------------------------------------------------------------------------------
  { id: 'js.eval', area: 'Script', cmd: '`eval` (expression, promise, object)', ref: 31, page: '/fixture.html', steps: ['eval 1+1', 'eval document.title', 'eval "Promise.resolve(42)"', 'eval "({a: 1, b: [2, 3]})"'] },
  {
    id: 'js.eval-b64-stdin', area: 'Script', cmd: '`eval -b`, `eval --stdin`', ref: 31, page: '/fixture.html',
    steps: [`eval -b ${b64("document.querySelectorAll('li').length")}`, { run: 'eval --stdin', stdin: "const items = [...document.querySelectorAll('li')];\nitems.map((li) => li.textContent).join('|');\n" }],
  },
  { id: 'js.eval-error', area: 'Script', cmd: '`eval` that throws', ref: 31, page: '/fixture.html', steps: ['eval "throw new Error(\'boom\')"', 'eval "nosuchvar.x"'] },
  { id: 'js.eval-unserializable', area: 'Script', cmd: '`eval` of NaN / Infinity / undefined / -0 / 10n (text)', ref: 32, page: '/fixture.html', steps: ['eval NaN', 'eval -Infinity', 'eval undefined', 'eval -0', 'eval 10n'] },
  { id: 'js.eval-unserializable-json', area: 'Script', cmd: '`--json eval` of NaN / 10n', ref: 32, page: '/fixture.html', steps: ['--json eval NaN', '--json eval 10n'] },
  {
    id: 'js.addinitscript', area: 'Script', cmd: '`addinitscript <js>` (documented, not in 0.41.2)', ref: 68, page: '/fixture.html',
    steps: ['addinitscript "window.__added = 1"'],
  },
  { id: 'js.removeinitscript', area: 'Script', cmd: '`removeinitscript <id>` (unknown id)', ref: 69, page: '/fixture.html', steps: ['removeinitscript nope-1'] },
  {
    id: 'js.batch', area: 'Script', cmd: '`batch` (args, stdin JSON, `--bail`)', ref: 70, page: '/fixture.html',
    steps: [
      'batch "open {SITE}/page1.html" "get title"',
      { run: 'batch', stdin: '[["open", "{SITE}/page2.html"], ["get", "title"]]' },
      'batch --bail "click #missing" "get title"',
      { run: 'batch', stdin: 'not json' },
    ],
  },
  { id: 'js.batch-json', area: 'Script', cmd: '`batch --json`', ref: 70, page: '/fixture.html', steps: ['--json batch "get title" "click #missing"'] },
  { id: 'js.batch-omit-command', area: 'Script', cmd: '`batch --json --omit-command`', ref: 71, page: '/fixture.html', steps: ['batch --json --omit-command "get title" "click #missing"'], notProvided: /Unknown command: --omit-command/ },

  // ---- Get and is ---------------------------------------------------------------------------
  { id: 'get.text-html-value', area: 'Get', cmd: '`get text|html|value|attr`', ref: 33, page: '/fixture.html', setup: ['fill #email a@b.test'], steps: ['get text h1', 'get html nav', 'get value #email', 'get attr "nav a" href'] },
  { id: 'get.title-url-count', area: 'Get', cmd: '`get title|url|count`', ref: 33, page: '/fixture.html', steps: ['get title', 'get url', 'get count li'] },
  { id: 'get.box', area: 'Get', cmd: '`get box` (text)', ref: 33, page: '/fixture.html', steps: ['get box h1'] },
  { id: 'get.box-json', area: 'Get', cmd: '`--json get box` (number format)', ref: 33, page: '/fixture.html', steps: ['--json get box h1'] },
  { id: 'get.styles', area: 'Get', cmd: '`get styles`', ref: 34, page: '/fixture.html', steps: ['get styles h1'] },
  { id: 'get.cdp-url', area: 'Get', cmd: '`get cdp-url` (browser running)', ref: 35, page: '/fixture.html', steps: ['get cdp-url'] },
  { id: 'get.cdp-url-no-browser', area: 'Get', cmd: '`get cdp-url` with no browser', ref: 35, session: 'nobrowser', steps: ['get cdp-url'], check: ['session list'], close: true },
  { id: 'is.state', area: 'Get', cmd: '`is visible|enabled|checked`', ref: 36, page: '/form.html', steps: ['is visible h1', 'is visible #late', 'is enabled #disabled-btn', 'is enabled #name', 'is checked #agree'] },

  // ---- Settings (own session: emulation sticks) ---------------------------------------------
  { id: 'set.viewport', area: 'Settings', cmd: '`set viewport <w> <h>`', ref: 37, session: 'settings', page: '/fixture.html', steps: ['set viewport 800 600'], check: ['eval "innerWidth + \'x\' + innerHeight"'] },
  { id: 'set.device', area: 'Settings', cmd: '`set device <name>`', ref: 37, session: 'settings', page: '/fixture.html', steps: ['set device "iPhone 14"'], check: ['eval "/iPhone/.test(navigator.userAgent)"'] },
  {
    id: 'set.geo', area: 'Settings', cmd: '`set geo <lat> <lng>`', ref: 37, session: 'settings', page: '/fixture.html', steps: ['set geo 48.85 2.35'],
    check: ['eval "new Promise(r => navigator.geolocation.getCurrentPosition(p => r(p.coords.latitude + \',\' + p.coords.longitude), e => r(\'error \' + e.code)))"'],
  },
  { id: 'set.offline', area: 'Settings', cmd: '`set offline on|off`', ref: 37, session: 'settings', page: '/fixture.html', steps: ['set offline on', 'eval navigator.onLine', 'set offline off'], check: ['eval navigator.onLine'] },
  { id: 'set.headers', area: 'Settings', cmd: '`set headers <json>`', ref: 37, session: 'settings', steps: ['set headers \'{"X-Set": "abc"}\'', 'open {SITE}/echo-headers'], check: ['eval "JSON.parse(document.body.innerText)[\'x-set\']"'] },
  { id: 'set.media', area: 'Settings', cmd: '`set media dark`, `light reduced-motion`', ref: 37, session: 'settings', page: '/fixture.html', steps: ['set media dark', 'eval "matchMedia(\'(prefers-color-scheme: dark)\').matches"', 'set media light reduced-motion'], check: ['eval "matchMedia(\'(prefers-reduced-motion: reduce)\').matches"'] },
  {
    id: 'set.credentials', area: 'Settings', cmd: '`set credentials <user> <pass>` (HTTP auth)', ref: 38, session: 'settings',
    steps: ['set credentials alice secret', 'open {SITE}/basic-auth'], check: ['get title', 'get text #who'], close: true,
  },

  // ---- Cookies and storage ------------------------------------------------------------------
  { id: 'cookies.set-get', area: 'State', cmd: '`cookies set`, `cookies` (order ignored: upstream\'s varies from call to call)', ref: 39, page: '/fixture.html', setup: ['cookies clear'], steps: ['cookies set foo bar', 'cookies set k2 v2', { run: 'cookies', lines: 'unordered' }, { run: 'cookies get', lines: 'unordered' }] },
  {
    id: 'cookies.flags', area: 'State', cmd: '`cookies set --url --http-only --same-site --path --expires --domain --secure`, unknown flag', ref: 39, page: '/fixture.html', setup: ['cookies clear'],
    steps: ['cookies set a 1 --url {SITE}/ --http-only --same-site Strict', 'cookies set b 2 --path / --expires 4102444800', 'cookies set d 4 --domain 127.0.0.1 --secure', 'cookies set c 3 --bogus'], check: [{ run: 'cookies', lines: 'unordered' }],
  },
  { id: 'cookies.json', area: 'State', cmd: '`--json cookies`', ref: 39, page: '/fixture.html', setup: ['cookies clear', 'cookies set a 1'], steps: ['--json cookies'] },
  {
    id: 'cookies.curl', area: 'State', cmd: '`cookies set --curl <file>`', ref: 39, page: '/fixture.html', setup: ['cookies clear', writeFile('{TMP}/cookies.txt', 'Cookie: cx=1; cy=2\n')],
    steps: ['cookies set --curl {TMP}/cookies.txt'], check: [{ run: 'cookies', lines: 'unordered' }],
  },
  { id: 'cookies.clear', area: 'State', cmd: '`cookies clear`', ref: 39, page: '/fixture.html', setup: ['cookies set z 9'], steps: ['cookies clear'], check: ['cookies'] },
  { id: 'storage.local', area: 'State', cmd: '`storage local [key]`, `set`, `--json`', ref: 40, page: '/storage.html', steps: ['storage local', 'storage local k1', 'storage local set a b', 'storage local a', '--json storage local'] },
  { id: 'storage.session', area: 'State', cmd: '`storage session`', ref: 40, page: '/storage.html', steps: ['storage session', 'storage session s1', 'storage session set t u'] },
  { id: 'storage.clear', area: 'State', cmd: '`storage local clear`', ref: 41, page: '/storage.html', steps: ['storage local clear'], check: ['storage local'] },

  // ---- Network ------------------------------------------------------------------------------
  {
    id: 'net.route-body', area: 'Network', cmd: '`network route <url> --body`', ref: 42, session: 'net', page: '/network.html',
    steps: ['network route "**/api/items" --body \'{"items":["mocked"]}\'', 'click #refetch', 'wait --fn "!document.querySelector(\'#result\').textContent.startsWith(\'pending\')"'], check: ['get text #result'],
    teardown: ['network unroute'],
  },
  {
    id: 'net.route-abort', area: 'Network', cmd: '`network route <url> --abort`', ref: 42, session: 'net', page: '/network.html',
    steps: ['network route "**/api/items" --abort', 'click #refetch', 'wait --fn "!document.querySelector(\'#result\').textContent.startsWith(\'pending\')"'], check: ['get text #result'],
    teardown: ['network unroute'],
  },
  {
    id: 'net.route-resource-type', area: 'Network', cmd: '`network route * --abort --resource-type fetch`', ref: 42, session: 'net', page: '/network.html',
    steps: ['network route "*" --abort --resource-type fetch', 'click #refetch', 'wait --fn "!document.querySelector(\'#result\').textContent.startsWith(\'pending\')"'], check: ['get text #result', 'get title'],
    teardown: ['network unroute'],
  },
  {
    id: 'net.route-allow-origin', area: 'Network', cmd: '`network route <url> --body --allow-origin` (cross-origin mock)', ref: 42, session: 'net',
    steps: ['network route "{SITE2}/api/items" --body \'{"items":["cross"]}\' --allow-origin {SITE}', 'open "{SITE}/fetch.html?target={SITE2}/api/items"', 'wait --fn "document.querySelector(\'#result\').textContent !== \'\'"'],
    check: ['get text #result', 'eval "fetch(\'{SITE2}/api/items\').then((r) => r.text())"'], teardown: ['network unroute'],
  },
  {
    id: 'net.unroute', area: 'Network', cmd: '`network unroute [url]`', ref: 42, session: 'net', page: '/network.html',
    setup: ['network route "**/api/items" --abort'], steps: ['network unroute "**/api/items"', 'click #refetch', 'wait --fn "!document.querySelector(\'#result\').textContent.startsWith(\'pending\')"'], check: ['get text #result'],
  },
  {
    id: 'net.requests', area: 'Network', cmd: '`network requests`', ref: 43, session: 'net',
    setup: ['network requests --clear', 'open {SITE}/network.html', 'wait --text "200:"'],
    steps: [{ run: 'network requests --filter /api/', norm: IDS }],
  },
  {
    id: 'net.requests-filters', area: 'Network', cmd: '`network requests --type --method --status`, `--clear`', ref: 43, session: 'net',
    setup: ['network requests --clear', 'open {SITE}/network.html', 'wait --text "200:"', 'click #post', 'wait --text "200:{"'],
    steps: [
      { run: 'network requests --type fetch --method POST', norm: IDS },
      { run: 'network requests --status 2xx --filter /api/', norm: IDS },
      'network requests --clear',
      { run: 'network requests', norm: IDS },
    ],
  },
  {
    id: 'net.request-detail', area: 'Network', cmd: '`network request <id>` (headers and bodies), `--json`', ref: 43, session: 'net',
    setup: ['network requests --clear', 'open {SITE}/network.html', 'wait --text "200:"', 'click #post', 'wait --text "200:{"'],
    steps: [
      { ...withIdFrom('network requests --method POST --filter /api/echo', '\\[([^\\]\\s]+)\\]', 'network request {ID}', 'network request <id of the POST /api/echo>'), norm: IDS },
      { ...withIdFrom('network requests --method POST --filter /api/echo', '\\[([^\\]\\s]+)\\]', '--json network request {ID}', '--json network request <id>'), norm: IDS, volatile: /^(lifecycle|date|user-agent|User-Agent|sec-ch-ua[\w-]*|timing|timestamp|headersText|remoteIPAddress|connectionId|encodedDataLength)$/ },
    ],
  },
  { id: 'net.request-unknown', area: 'Network', cmd: '`network request <unknown id>` (error)', ref: 43, session: 'net', steps: ['network request no-such-id', '--json network request no-such-id'] },
  {
    id: 'net.route-status', area: 'Network', cmd: '`network route <url> --body --status <code>`', ref: 42, session: 'net', page: '/network.html',
    steps: ['network route "**/api/items" --body down --status 503', 'click #refetch', 'wait --fn "!document.querySelector(\'#result\').textContent.startsWith(\'pending\')"'], check: ['get text #result'],
    teardown: ['network unroute'],
  },
  {
    id: 'net.route-exact-url', area: 'Network', cmd: '`network route <url without *>` (the exact URL only)', ref: 42, session: 'net', page: '/network.html',
    steps: ['network route "{SITE}/api/items" --body exact', 'click #refetch', 'wait --fn "!document.querySelector(\'#result\').textContent.startsWith(\'pending\')"', 'network route "/api/items" --abort', 'click #refetch', 'wait --fn "!document.querySelector(\'#result\').textContent.startsWith(\'pending\')"'], check: ['get text #result'],
    teardown: ['network unroute'],
  },
  {
    id: 'net.har', area: 'Network', cmd: '`network har start` / `stop <path>`', ref: 44, session: 'net', page: '/fixture.html',
    steps: ['network har start', 'open {SITE}/network.html', 'wait --text "200:"', { run: 'network har stop {TMP}/cap.har', norm: NUMBERS }], check: [file('{TMP}/cap.har', 'har')],
  },
  {
    id: 'net.har-content', area: 'Network', cmd: '`network har start --content none`', ref: 44, session: 'net', page: '/fixture.html',
    steps: ['network har start --content none', 'open {SITE}/network.html', 'wait --text "200:"', { run: 'network har stop {TMP}/cap-none.har', norm: NUMBERS }], check: [file('{TMP}/cap-none.har', 'har')],
  },
  { id: 'net.har-content-invalid', area: 'Network', cmd: '`network har start --content <bad>` (error)', ref: 44, session: 'net', steps: ['network har start --content bogus', '--json network har start --content bogus'] },
  {
    id: 'net.har-unwritable', area: 'Network', cmd: '`network har stop <unwritable path>` (error; the recording goes on)', ref: 44, session: 'net', page: '/fixture.html',
    steps: ['network har start', 'network har stop /nonexistent-dir/cap.har', { run: 'network har stop {TMP}/cap-retry.har', norm: NUMBERS }],
  },
  { id: 'net.har-stop-without-start', area: 'Network', cmd: '`network har stop` without `har start`', ref: 44, session: 'net', steps: [{ run: 'network har stop {TMP}/never.har', norm: NUMBERS }], close: true },

  // ---- Tabs, windows, frames, dialogs (own session: tab ids count up) ------------------------
  { id: 'tab.list', area: 'Tabs', cmd: '`tab`, `tab list`', ref: 45, session: 'tabs', page: '/page1.html', steps: ['tab', 'tab list'] },
  { id: 'tab.new', area: 'Tabs', cmd: '`tab new [url]`, `tab new --label`', ref: 45, session: 'tabs', steps: ['tab new {SITE}/page2.html', 'tab new --label docs {SITE}/fixture.html'], check: ['get url'] },
  { id: 'tab.titles', area: 'Tabs', cmd: 'tab titles in `tab list` right after `tab new`', ref: 46, session: 'tabs', steps: ['tab list'] },
  { id: 'tab.switch', area: 'Tabs', cmd: '`tab <tN>`, `tab <label>`, `tab 2` (error)', ref: 45, session: 'tabs', steps: ['tab t1', 'get url', 'tab docs', 'get url', 'tab 2'] },
  {
    id: 'tab.switch-target-id', area: 'Tabs', cmd: '`tab <targetId>` (from `--json tab list`)', ref: 45, session: 'tabs',
    steps: [withIdFrom('--json tab list', '"targetId":"([0-9A-F]{32})"', 'tab {ID}', 'tab <targetId of the first tab>')], check: ['get url'],
  },
  { id: 'tab.list-json', area: 'Tabs', cmd: '`--json tab list`', ref: 45, session: 'tabs', steps: ['--json tab list'] },
  { id: 'tab.close-id', area: 'Tabs', cmd: '`tab close <tN|label>`', ref: 45, session: 'tabs', steps: ['tab close t2'], check: ['tab list'] },
  {
    id: 'tab.close-active-next', area: 'Tabs', cmd: '`tab close` of the active tab among three: the next tab becomes active', ref: 47, session: 'tabclose',
    setup: ['open {SITE}/page1.html', 'tab new {SITE}/page2.html', 'tab new {SITE}/fixture.html', 'tab t2'],
    steps: ['tab close', 'get url', 'tab close', 'get url'], close: true,
  },
  { id: 'tab.close-active', area: 'Tabs', cmd: '`tab close` of the active tab, then `tab close` again', ref: 47, session: 'tabs', setup: ['tab t1'], steps: ['tab close', 'tab list', 'tab close'], check: ['tab list'] },
  { id: 'tab.close-last', area: 'Tabs', cmd: 'closing the last tab (error)', ref: 45, session: 'tabs', steps: ['tab close'], close: true },
  { id: 'tab.window-new', area: 'Tabs', cmd: '`window new`', ref: 48, session: 'windows', page: '/page1.html', steps: ['window new', '--json window new'], check: ['tab list'], close: true },
  { id: 'frame.css', area: 'Tabs', cmd: '`frame <css>`, then a scoped `snapshot -i`', ref: 49, page: '/iframe.html', steps: ['frame "#same"', 'snapshot -i'], teardown: ['frame main'] },
  { id: 'frame.ref', area: 'Tabs', cmd: '`frame @ref`, then `click` in it', ref: 49, page: '/iframe.html', steps: [withRef('frame', 'Iframe "Same-origin frame"'), 'click #inner-btn', 'get text #inner-result'], teardown: ['frame main'] },
  { id: 'frame.main', area: 'Tabs', cmd: '`frame main`', ref: 49, page: '/iframe.html', setup: ['frame "#same"'], steps: ['frame main', 'get title'] },
  { id: 'frame.json', area: 'Tabs', cmd: '`--json frame <css>` / `--json frame main`', ref: 49, page: '/iframe.html', steps: ['--json frame "#same"', '--json frame main'] },
  { id: 'frame.eval', area: 'Tabs', cmd: '`eval` and `get text` in a `frame` scope', ref: 49, page: '/iframe.html', steps: ['frame "#same"', 'eval "document.title"', 'get text h1'], teardown: ['frame main'] },
  { id: 'frame.cross-site', area: 'Tabs', cmd: '`frame` of a cross-site (out-of-process) iframe, then `click` and `snapshot -i`', ref: 49, page: '/iframe.html', steps: ['frame "#cross"', 'click #inner-btn', 'snapshot -i'], teardown: ['frame main'] },
  { id: 'frame.errors', area: 'Tabs', cmd: '`frame` of a missing element, a non-iframe, an unknown ref, no argument', ref: 49, page: '/iframe.html', steps: ['frame "#nope"', 'frame h1', 'frame @e999', 'frame'] },
  { id: 'frame.refs-inline', area: 'Tabs', cmd: 'refs inside an iframe from the main snapshot', ref: 49, page: '/iframe.html', steps: [withRef('click', 'button "Inner button"')], check: ['eval "document.querySelector(\'#same\').contentDocument.querySelector(\'#inner-result\').textContent"'] },
  {
    id: 'dialog.confirm', area: 'Tabs', cmd: '`dialog status|accept` on a confirm', ref: 50, page: '/dialogs.html',
    steps: ['click #confirm', 'dialog status', { run: 'get title', timeout: 3000 }, 'dialog accept'], check: ['dialog status', 'get text #result'],
  },
  { id: 'dialog.dismiss', area: 'Tabs', cmd: '`dialog dismiss`', ref: 50, page: '/dialogs.html', steps: ['click #confirm', 'dialog dismiss'], check: ['get text #result'] },
  { id: 'dialog.prompt', area: 'Tabs', cmd: '`dialog accept <text>` on a prompt', ref: 50, page: '/dialogs.html', steps: ['click #prompt', 'dialog accept "from agent"'], check: ['get text #result'] },
  { id: 'dialog.alert-auto', area: 'Tabs', cmd: 'an `alert` is accepted automatically', ref: 50, page: '/dialogs.html', steps: ['click #alert'], check: ['get text #result', 'dialog status'] },

  // ---- Diff ---------------------------------------------------------------------------------
  { id: 'diff.snapshot', area: 'Diff', cmd: '`diff snapshot`', ref: 51, page: '/fixture.html', setup: ['snapshot'], steps: ['diff snapshot'] },
  {
    id: 'diff.screenshot', area: 'Diff', cmd: '`diff screenshot --baseline`', ref: 52, page: '/fixture.html', setup: ['screenshot {TMP}/base.png', 'open {SITE}/page2.html'],
    steps: [{ run: 'diff screenshot --baseline {TMP}/base.png --output {TMP}/diff.png', norm: NUMBERS }], check: [file('{TMP}/diff.png', 'png')],
  },
  { id: 'diff.url-same', area: 'Diff', cmd: '`diff url` of one page twice, `diff url` with one URL', ref: 53, steps: ['diff url {SITE}/page1.html {SITE}/page1.html', '--json diff url {SITE}/page1.html {SITE}/page1.html', 'diff url {SITE}/page1.html'], check: ['get url'] },
  { id: 'diff.url', area: 'Diff', cmd: '`diff url <u1> <u2>`', ref: 53, steps: ['diff url {SITE}/page1.html {SITE}/page2.html', '--json diff url {SITE}/page1.html {SITE}/page2.html'] },

  // ---- Debug --------------------------------------------------------------------------------
  { id: 'dbg.console', area: 'Debug', cmd: '`console`', ref: 54, page: '/console.html', setup: ['wait 200'], steps: ['console'] },
  { id: 'dbg.console-json', area: 'Debug', cmd: '`--json console`', ref: 54, page: '/console.html', setup: ['wait 200'], steps: ['--json console'] },
  { id: 'dbg.console-clear', area: 'Debug', cmd: '`console --clear`', ref: 55, page: '/console.html', setup: ['wait 200'], steps: ['console --clear', 'console'] },
  { id: 'dbg.errors', area: 'Debug', cmd: '`errors`', ref: 56, page: '/console.html', setup: ['wait 200'], steps: ['errors'] },
  { id: 'dbg.errors-json', area: 'Debug', cmd: '`--json errors`', ref: 56, page: '/console.html', setup: ['wait 200'], steps: ['--json errors'] },
  { id: 'dbg.errors-clear', area: 'Debug', cmd: '`errors --clear`', ref: 57, page: '/console.html', setup: ['wait 200'], steps: ['errors --clear', 'errors'] },
  { id: 'dbg.trace', area: 'Debug', cmd: '`trace start|stop <path>`', ref: 58, page: '/fixture.html', steps: ['trace start', 'reload', 'trace stop {TMP}/trace.json'], check: [file('{TMP}/trace.json', 'trace')] },
  { id: 'dbg.profiler', area: 'Debug', cmd: '`profiler start|stop <path>`', ref: 59, page: '/fixture.html', steps: ['profiler start', 'reload', { run: 'profiler stop {TMP}/prof.json', norm: NUMBERS }], check: [file('{TMP}/prof.json', 'trace')] },
  {
    id: 'dbg.record', area: 'Debug', cmd: '`record start|stop`, `restart`', ref: 60, page: '/animated.html', timeout: 30_000,
    steps: ['record start {TMP}/rec.webm', pause(1000), 'record restart {TMP}/rec2.webm', pause(500), 'record stop'], check: [file('{TMP}/rec.webm', 'webm'), file('{TMP}/rec2.webm', 'webm')],
  },
  { id: 'dbg.clipboard', area: 'Debug', cmd: '`clipboard write|read|copy|paste`', ref: 61, page: '/form.html', setup: ['focus #name'], steps: ['clipboard write "clip text"', 'clipboard read', 'clipboard paste', 'clipboard copy'] },
  { id: 'dbg.inspect', area: 'Debug', cmd: '`inspect`', ref: 62, page: '/fixture.html', steps: ['inspect'] },
  { id: 'dbg.stream', area: 'Debug', cmd: '`stream status|enable|disable`', ref: 63, page: '/fixture.html', steps: ['stream status', 'stream enable', 'stream status', 'stream disable', 'stream status'] },
  { id: 'dbg.stream-json', area: 'Debug', cmd: '`--json stream status`', ref: 63, page: '/fixture.html', steps: ['--json stream status'] },

  // ---- Perf, audits, frameworks -------------------------------------------------------------
  { id: 'perf.vitals', area: 'Perf', cmd: '`vitals [url]`', ref: 64, steps: [{ run: 'vitals {SITE}/article.html', norm: NUMBERS }] },
  { id: 'perf.a11y', area: 'Perf', cmd: '`a11y [url]` (`--json` counts)', ref: 65, page: '/form.html', steps: [{ run: '--json a11y', volatile: /^(violations|incomplete|passes|inapplicable|nodes|timestamp|url|testEngine|toolOptions|testEnvironment|testRunner|lifecycle)$/ }] },
  { id: 'perf.react', area: 'Perf', cmd: '`react tree|inspect|renders|suspense` on a page without React', ref: 66, page: '/fixture.html', steps: ['react tree', 'react inspect 1', 'react renders start', 'react renders stop', 'react suspense'] },
  {
    id: 'perf.react-devtools', area: 'Perf', cmd: '`--enable react-devtools`, then `react tree` without React', ref: 66, session: 'react',
    steps: ['--enable react-devtools open {SITE}/fixture.html', 'react tree'], close: true,
  },
  { id: 'perf.webmcp', area: 'Perf', cmd: '`webmcp list`, `invoke|result|cancel` of unknown ids', ref: 67, page: '/fixture.html', steps: ['webmcp list', 'webmcp invoke nope', 'webmcp result nope-1', 'webmcp cancel nope-1'] },
  {
    id: 'perf.a11y-planted', area: 'Perf', cmd: '`a11y` on a page with planted problems, then on the same page done right (rule ids and targets)', ref: 65, session: 'a11y',
    steps: [
      { run: '--json a11y {SITE}/a11y-bad.html', volatile: /^(failureSummary|help|helpUrl|tags|html|counts|axeVersion|engine|rules|incomplete|lifecycle)$/ },
      { run: '--json a11y {SITE}/a11y-clean.html', volatile: /^(failureSummary|help|helpUrl|tags|html|counts|axeVersion|engine|rules|incomplete|lifecycle)$/ },
      { run: ['a11y', '--selector', '#nope'] },
    ],
    close: true,
  },
  {
    id: 'perf.react-fixture', area: 'Perf', cmd: '`react tree|inspect|renders|suspense` on a React page (`--enable react-devtools`)', ref: 66, session: 'react-fixture',
    steps: ['--enable react-devtools open {SITE}/react.html', 'react tree', 'react inspect 3', 'react renders start', 'click #inc', 'react renders stop', 'react suspense'],
    close: true,
  },
  {
    id: 'perf.webmcp-tools', area: 'Perf', cmd: '`webmcp list|invoke|result|cancel` on a page with tools (full Chromium)', ref: 67, session: 'webmcp',
    env: { AGENT_BROWSER_EXECUTABLE_PATH: '/usr/lib/chromium/chromium' },
    steps: [
      { run: 'open {SITE}/webmcp.html', stdout: 'ignore' },
      { run: '--json webmcp list', volatile: /^(frameId|lifecycle)$/ },
      { run: ['--json', 'webmcp', 'invoke', 'add', '--params', '{"a":2,"b":3}'], volatile: /^(frameId|invocationId|durationMs|lifecycle)$/ },
      { run: '--json webmcp invoke broken', volatile: /^(frameId|invocationId|durationMs|lifecycle|error)$/ },
      { run: 'webmcp invoke nope' },
    ],
    close: true,
  },
  {
    id: 'perf.no-webmcp', area: 'Perf', cmd: '`--no-webmcp`, then `webmcp list` on a page with tools', ref: 67, session: 'no-webmcp',
    env: { AGENT_BROWSER_EXECUTABLE_PATH: '/usr/lib/chromium/chromium' },
    steps: [{ run: '--no-webmcp open {SITE}/webmcp.html', stdout: 'ignore' }, 'webmcp list', 'eval document.body.dataset.webmcp'],
    close: true,
  },

  // ---- Sessions, state, auth ----------------------------------------------------------------
  { id: 'session.name-list', area: 'Session', cmd: '`session`, `session list`', ref: 72, page: '/fixture.html', steps: ['session', '--session other session', 'session list'] },
  {
    id: 'session.profile-in-use', area: 'Session', cmd: 'a second session on a `--profile` a live session holds (full Chrome), then its `close`', session: 'prof-a', timeout: 30_000,
    env: { AGENT_BROWSER_EXECUTABLE_PATH: '/usr/bin/chromium' },
    setup: ['--profile {TMP}/inuse open {SITE}/page1.html'],
    steps: [{ run: '--session prof-b --profile {TMP}/inuse open {SITE}/page1.html', stderr: 'ignore' }, '--session prof-b close'],
    check: ['get title'], teardown: ['--session prof-b close'], close: true,
  },
  { id: 'session.id', area: 'Session', cmd: '`session id --scope cwd|worktree`, `--prefix`', ref: 72, steps: ['session id --scope cwd', 'session id --scope cwd --prefix next', 'session id --scope worktree'] },
  { id: 'session.id-git-root', area: 'Session', cmd: '`session id --scope git-root` outside a Git tree', ref: 73, steps: ['session id --scope git-root'] },
  { id: 'session.info', area: 'Session', cmd: '`session info` (text)', ref: 74, page: '/fixture.html', steps: ['session info'] },
  { id: 'session.info-json', area: 'Session', cmd: '`--json session info`', ref: 74, page: '/fixture.html', steps: ['--json session info'] },
  {
    id: 'state.save-load', area: 'Session', cmd: '`state save <file>`, `state load <file>`', ref: 75, session: 'statesrc', page: '/storage.html',
    setup: ['cookies set st fromstate'],
    steps: ['state save {TMP}/st.json', 'close', '--session statedst open {SITE}/page1.html', '--session statedst state load {TMP}/st.json'],
    check: [file('{TMP}/st.json', 'state'), '--session statedst get url', '--session statedst cookies', '--session statedst storage local k1'],
    teardown: ['--session statedst close'],
  },
  {
    id: 'state.manage', area: 'Session', cmd: '`state list|show|rename|clear|clean`', ref: 76, page: '/fixture.html',
    steps: ['state list', 'state show st.json', 'state rename a b', 'state clear --all', 'state clean --older-than 7'],
  },
  {
    id: 'auth.vault', area: 'Session', cmd: '`auth save --password-stdin`, `login`, `list`, `show`, `delete`', ref: 77, session: 'auth', timeout: 30_000,
    steps: [
      { run: 'auth save fixture --url {SITE}/login.html --username alice --password-stdin', stdin: 'hunter2\n' },
      'auth list',
      { run: 'auth show fixture', norm: [[/\d{4}-\d\d-\d\d\S*/g, 'DATE']] },
      'auth login fixture',
      'get url',
      'get text #persist',
      'auth delete fixture',
      'auth list',
    ],
    close: true,
  },
  {
    id: 'auth.confirm-actions', area: 'Session', cmd: '`--confirm-actions navigate open …`, `confirm <id>`, `deny <id>`', ref: 78, session: 'confirm',
    steps: [
      { run: '--confirm-actions navigate open {SITE}/page1.html', norm: IDS },
      { ...withIdFrom('--confirm-actions navigate open {SITE}/page2.html', 'confirm (\\S+)', 'confirm {ID}', 'confirm <id>'), norm: IDS },
      'get url',
      { ...withIdFrom('--confirm-actions navigate open {SITE}/fixture.html', 'confirm (\\S+)', 'deny {ID}', 'deny <id>'), norm: IDS },
      'get url',
    ],
    close: true,
  },
  {
    id: 'state.encrypted', area: 'Session', cmd: '`AGENT_BROWSER_ENCRYPTION_KEY`: `state save` → `.enc`, `state show` without / with a wrong key', ref: 75, session: 'stateenc', page: '/storage.html',
    env: { AGENT_BROWSER_ENCRYPTION_KEY: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
    steps: ['state save {TMP}/enc.json', { run: 'state show {TMP}/enc.json.enc', env: { AGENT_BROWSER_ENCRYPTION_KEY: null } }, { run: 'state show {TMP}/enc.json.enc', env: { AGENT_BROWSER_ENCRYPTION_KEY: 'wrong' } }],
    close: true,
  },
  {
    id: 'state.restore', area: 'Session', cmd: '`--restore <key>`: saved on close, loaded by a new session', ref: 75, session: 'restoresrc', page: '/storage.html',
    setup: ['cookies set rs fromrestore'],
    steps: ['--restore rkey --json close', '--session restoredst --restore rkey open {SITE}/page1.html', '--session restoredst cookies'],
    teardown: ['--session restoredst --restore rkey --restore-save never close', 'state clear rkey'],
  },
  {
    id: 'policy.deny', area: 'Session', cmd: '`--action-policy <file>` denying `evaluate`', ref: 78, session: 'policy', page: '/fixture.html',
    setup: [writeFile('{TMP}/policy.json', '{"default":"allow","deny":["evaluate"]}')],
    steps: ['--action-policy {TMP}/policy.json eval 1'],
    close: true,
  },
  { id: 'refuse.provider', area: 'Session', cmd: '`-p browserbase` without its API key', ref: 78, session: 'prov', steps: ['-p browserbase open {SITE}/page1.html'] },
  { id: 'refuse.chat', area: 'Session', cmd: '`chat` without `AI_GATEWAY_API_KEY`', ref: 78, steps: ['chat hello'] },
  { id: 'refuse.engine', area: 'Session', cmd: '`--engine lightpanda` without the binary', ref: 78, session: 'lp', steps: ['--engine lightpanda open {SITE}/page1.html'] },
  { id: 'auth.plugin', area: 'Session', cmd: '`plugin list|show|run` (`plugin add` not run: it downloads)', ref: 79, steps: ['plugin list', 'plugin', 'plugin show nope', 'plugin run nope ping'] },

  // ---- Setup and integrations ---------------------------------------------------------------
  {
    id: 'setup.skills-list', area: 'Setup', cmd: '`skills`, `skills list` (the names)', ref: 80,
    steps: [{ label: 'skills list (first column)', fn: async (h) => { const r = await h.run('skills list'); return { ...r, stdout: r.stdout.split('\n').map((l) => l.trim().split(/\s+/)[0]).filter(Boolean).join('\n') }; } }, { run: 'skills', stdout: 'ignore' }],
  },
  { id: 'setup.skills-get-core', area: 'Setup', cmd: '`skills get core`', ref: 80, steps: [{ run: 'skills get core', stdout: 'ignore' }, 'skills get nope'] },
  { id: 'setup.skills-get-ref', area: 'Setup', cmd: '`skills get core --ref commands`, `--full`', ref: 80, steps: [{ run: 'skills get core --ref commands', stdout: 'ignore' }, { run: 'skills get core --full', stdout: 'ignore' }] },
  {
    id: 'setup.skills-path', area: 'Setup', cmd: '`skills path [name]`', ref: 80,
    steps: [{ label: 'skills path core: a directory with SKILL.md', fn: async (h) => { const r = await h.run('skills path core'); return { ...r, stdout: r.rc === 0 ? `SKILL.md there: ${h.read(`${r.stdout.trim()}/SKILL.md`) !== null}` : r.stdout }; } }],
  },
  {
    id: 'setup.skills-errors', area: 'Setup', cmd: '`skills` bad input: unknown name, no name, `--ref` without a value, unknown subcommand (text and `--json`)', ref: 80,
    steps: ['skills get nope', 'skills get', 'skills get core --ref', 'skills get core --ref nope-at-all', 'skills bogus', '--json skills get nope', '--json skills get', '--json skills bogus', 'skills path nope'],
    compare: { norm: [[/Available: .*/, 'Available: LIST']] },
  },
  {
    id: 'setup.skills-json', area: 'Setup', cmd: '`--json skills list`, `--json skills get core [--ref commands]`, `--json skills path [core]` (shapes)', ref: 80,
    steps: [
      { run: '--json skills list', volatile: /^(description)$/ },
      { run: '--json skills get core', volatile: /^(content)$/ },
      { run: '--json skills get core --ref commands', volatile: /^(content)$/ },
      { run: '--json skills path core', volatile: /^(path)$/ },
      { run: '--json skills path', volatile: /^(paths)$/ },
    ],
  },
  {
    id: 'setup.skills-two', area: 'Setup', cmd: '`skills get core slack` (two guides, one rule between)', ref: 80,
    steps: [{ label: 'skills get core slack: the rule before the second guide', fn: async (h) => { const r = await h.run('skills get core slack'); return `rc ${r.rc}, rule: ${r.stdout.includes('\n---\n\n---\nname: slack\n')}`; } }],
  },
  {
    id: 'setup.mcp', area: 'Setup', cmd: '`mcp` (stdio initialize, tools/list)', ref: 81, timeout: 15_000,
    steps: [{
      run: 'mcp',
      stdin: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"compat","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n',
      stdout: 'ignore',
    }],
  },
  { id: 'setup.mcp-call', area: 'Setup', cmd: '`mcp call <tool> <json>`', ref: 81, page: '/fixture.html', steps: [{ run: 'mcp call agent_browser_get_url {}', volatile: /^(lifecycle|launchHash|stdout|agentBrowserVersion)$/ }, 'mcp call nope {}'] },
  { id: 'setup.chat', area: 'Setup', cmd: '`chat <message>` without a gateway key', ref: 82, steps: ['chat "open the page"'] },
  {
    id: 'setup.dashboard', area: 'Setup', cmd: '`dashboard start --port`, `dashboard stop`', ref: 83,
    steps: ['dashboard start --port {FREEPORT}', 'dashboard stop', 'dashboard stop'],
  },
  {
    id: 'setup.dashboard-again', area: 'Setup', cmd: '`dashboard start` twice, `--json`, another port', ref: 83,
    compare: { norm: [[/port \d+/g, 'port N']] },
    steps: ['dashboard start --port {FREEPORT}', 'dashboard start --port {FREEPORT}', { run: '--json dashboard start --port {FREEPORT}', volatile: /^(pid|port)$/ }, 'dashboard start', '--json dashboard start'],
    teardown: ['dashboard stop'],
  },
  {
    id: 'setup.dashboard-errors', area: 'Setup', cmd: '`dashboard` bad words, `--json dashboard stop`', ref: 83,
    steps: ['dashboard start --port abc', 'dashboard bogus', 'dashboard stop now', '--json dashboard stop'],
  },
  { id: 'setup.doctor', area: 'Setup', cmd: '`doctor --offline --quick`', ref: 84, timeout: 60_000, steps: [{ run: 'doctor --offline --quick', stdout: 'ignore' }] },
  { id: 'setup.doctor-json', area: 'Setup', cmd: '`doctor --offline --quick --json`', ref: 84, timeout: 60_000, steps: [{ run: 'doctor --offline --quick --json', volatile: /./ }] },
  { id: 'setup.doctor-fix', area: 'Setup', cmd: '`doctor --offline --quick --fix` (exit code)', ref: 84, timeout: 60_000, steps: [{ run: 'doctor --offline --quick --fix', stdout: 'ignore' }] },
  { id: 'setup.doctor-bad-socket-dir', area: 'Setup', cmd: '`doctor` with a socket dir that cannot be created', ref: 84, timeout: 60_000, env: { AGENT_BROWSER_SOCKET_DIR: '/proc/abx-compat/sockets' }, steps: [{ run: 'doctor --offline --quick', stdout: 'ignore' }] },
  { id: 'setup.profiles', area: 'Setup', cmd: '`profiles`', ref: 85, steps: ['profiles'] },
  {
    id: 'setup.install', area: 'Setup', cmd: '`install` (upstream not run: it downloads)', ref: 86, upstream: 'skip',
    expect: (o) => (o.rc === 0 ? null : `ours rc ${o.rc}: ${(o.stderr || o.stdout).split('\n')[0]}`),
    steps: ['install'],
  },
  {
    id: 'setup.upgrade', area: 'Setup', cmd: '`upgrade` (upstream not run: it downloads)', ref: 86, upstream: 'skip',
    expect: (o) => (/upgrade|npm|cargo|install/i.test(o.stdout + o.stderr) ? null : `ours says nothing about upgrading: ${(o.stderr || o.stdout).split('\n')[0]}`),
    steps: ['upgrade'],
  },

  // ---- Help, version, errors ----------------------------------------------------------------
  {
    id: 'help.global', area: 'Help', cmd: '`--help` starts with where to begin; `-h`; no arguments', ref: 87,
    steps: [
      { label: '--help names skills get core in its first 10 lines', fn: async (h) => { const r = await h.run('--help'); return `rc ${r.rc}, start here: ${r.stdout.split('\n').slice(0, 10).some((l) => l.includes('skills get core'))}`; } },
      { label: '-h is --help', fn: async (h) => { const [a, b] = await Promise.all([h.run('--help'), h.run('-h')]); return `same text: ${a.stdout === b.stdout}`; } },
      { run: [], label: '(no arguments)', stdout: 'ignore' },
    ],
  },
  {
    id: 'help.command', area: 'Help', cmd: '`<cmd> --help` has examples', ref: 87,
    steps: ['open', 'click', 'fill', 'snapshot', 'wait', 'get', 'screenshot', 'eval', 'tab', 'cookies', 'network', 'state', 'skills', 'doctor', 'install'].map(helpHasExamples),
  },
  { id: 'help.version', area: 'Help', cmd: '`--version`, `-V`', ref: 88, steps: ['--version', '-V'] },
  { id: 'help.errors', area: 'Help', cmd: 'unknown command, missing argument, `--json` error envelope', ref: 88, page: '/fixture.html', steps: ['bogus', 'click', 'fill #email', '--json click #missing'] },

  // ---- Global flags -------------------------------------------------------------------------
  {
    id: 'flags.parsed', area: 'Flags', cmd: 'launch and policy flags before `session` (parsed the same)', ref: 102,
    steps: [
      '--proxy http://127.0.0.1:9 --proxy-bypass localhost session',
      '--ignore-https-errors --hide-scrollbars false session',
      '--no-auto-dialog --action-policy {TMP}/none.json session',
      '--confirm-interactive --session-name x session',
      '--no-webmcp --model m -v -q session',
      '--pin-tab --download-path {TMP}/dl session',
      '--bogus-flag session',
    ],
  },
  { id: 'flags.session-namespace', area: 'Flags', cmd: '`--session`, `--namespace`, bad session name', ref: 89, steps: ['--session abc session', '--namespace ns1 session', '--session "bad name" session'] },
  {
    id: 'flags.json-env', area: 'Flags', cmd: '`AGENT_BROWSER_JSON`, `--content-boundaries`', ref: 89, page: '/fixture.html',
    steps: [{ run: 'get title', env: { AGENT_BROWSER_JSON: '1' } }, { run: '--content-boundaries get text h1', norm: [[/[0-9a-f]{16,}/g, 'NONCE']] }],
  },
  {
    id: 'flags.max-output', area: 'Flags', cmd: '`--max-output <n>`, `AGENT_BROWSER_MAX_OUTPUT` (new session)', ref: 89, session: 'maxout', page: '/fixture.html',
    steps: [{ run: '--max-output 20 snapshot', refs: 'absolute' }, { run: 'snapshot -i', env: { AGENT_BROWSER_MAX_OUTPUT: '30' }, refs: 'absolute' }], close: true,
  },
  {
    id: 'flags.user-agent', area: 'Flags', cmd: '`--user-agent`, then a command without it', ref: 90, session: 'ua',
    steps: ['--user-agent abx-compat-ua open {SITE}/page1.html', 'eval navigator.userAgent', { run: 'eval "navigator.userAgent.includes(\'abx-compat-ua\')"', label: 'eval (no --user-agent): UA kept?' }], close: true,
  },
  {
    id: 'flags.config', area: 'Flags', cmd: '`--config <file>`', ref: 90, session: 'config', setup: [writeFile('{TMP}/cfg.json', '{"userAgent": "abx-config-ua"}')],
    steps: ['--config {TMP}/cfg.json open {SITE}/page1.html', 'eval navigator.userAgent'], close: true,
  },
  {
    id: 'flags.profile', area: 'Flags', cmd: '`--profile <dir>` keeps storage across runs', ref: 91, session: 'prof',
    steps: ['--profile {TMP}/profile open {SITE}/storage.html', 'close', '--profile {TMP}/profile open {SITE}/page1.html', 'eval "localStorage.getItem(\'k1\')"'], close: true,
  },
  { id: 'flags.allowed-domains', area: 'Flags', cmd: '`--allowed-domains`', ref: 91, session: 'allow', steps: ['--allowed-domains 127.0.0.1 open {SITE}/page1.html', '--allowed-domains 127.0.0.1 open {SITE2}/page2.html'], close: true },
  {
    id: 'flags.idle-timeout', area: 'Flags', cmd: '`--idle-timeout`', ref: 91, session: 'idle',
    steps: ['--idle-timeout 2s open {SITE}/page1.html', pause(4000), 'session list'], close: true,
  },
  {
    id: 'flags.cdp', area: 'Flags', cmd: '`--cdp <url>`, later commands without it', ref: 91,
    setup: ['--session cdphost2 open {SITE}/page2.html'],
    steps: [withIdFrom('--session cdphost2 get cdp-url', '(ws://\\S+)', '--session viacdp --cdp {ID} get url', '--cdp <ws-url> get url'), '--session viacdp get url'],
    teardown: ['--session viacdp close', '--session cdphost2 close'],
  },
  { id: 'flags.headed', area: 'Flags', cmd: '`--headed` (Xvfb when no display)', ref: 91, session: 'headed', timeout: 30_000, env: { DISPLAY: null }, steps: ['--headed open {SITE}/page1.html', 'eval "navigator.userAgent.includes(\'Headless\')"'], close: true },
  { id: 'flags.webgpu', area: 'Flags', cmd: '`--webgpu`', ref: 91, session: 'webgpu', timeout: 30_000, env: { AGENT_BROWSER_WEBGPU: '1' }, steps: ['--webgpu open {SITE}/page1.html'], check: ['eval "navigator.gpu ? navigator.gpu.requestAdapter().then((a) => a !== null) : \'no navigator.gpu\'"'], close: true },
  {
    id: 'flags.screenshot-quality-env', area: 'Flags', cmd: '`AGENT_BROWSER_SCREENSHOT_QUALITY` out of range', ref: 89, page: '/fixture.html', env: { AGENT_BROWSER_SCREENSHOT_QUALITY: '101' },
    steps: [{ run: '--screenshot-format jpeg screenshot {TMP}/quality.jpg', stderr: 'raw' }],
  },
  {
    id: 'flags.plugins-env', area: 'Flags', cmd: '`AGENT_BROWSER_PLUGINS` with a plugin', ref: 91, session: 'plugins',
    env: { AGENT_BROWSER_PLUGINS: '[{"name":"captcha","command":"/nonexistent/plugin","capabilities":["launch.mutate"]}]' },
    steps: ['open {SITE}/page1.html'], close: true,
  },
  { id: 'flags.executable-path', area: 'Flags', cmd: '`--executable-path` of a missing file', ref: 91, session: 'badexe', steps: ['--executable-path /nonexistent/chrome open {SITE}/page1.html'], close: true },
  {
    id: 'flags.allow-file-access', area: 'Flags', cmd: '`--allow-file-access` (file:// pages)', ref: 91, session: 'files', setup: [writeFile('{TMP}/local.html', '<title>Local file</title><h1>local</h1>')],
    steps: ['--allow-file-access open file://{TMP}/local.html', 'get title'], close: true,
  },
  {
    id: 'flags.screenshot-dir', area: 'Flags', cmd: '`--screenshot-dir <dir>`', ref: 89, page: '/fixture.html',
    steps: [{ run: '--screenshot-dir {TMP}/shots screenshot', norm: [[/screenshot-[\w.-]+\.png/g, 'screenshot-N.png']] }],
  },
  {
    id: 'flags.no-auto-dialog', area: 'Flags', cmd: '`--no-auto-dialog` (an alert waits)', ref: 102, session: 'noauto', env: { AGENT_BROWSER_NO_AUTO_DIALOG: '1' },
    steps: ['--no-auto-dialog open {SITE}/dialogs.html', 'click #alert', 'dialog status', 'dialog accept'], check: ['get text #result'], close: true,
  },
  {
    id: 'flags.download-path', area: 'Flags', cmd: '`--download-path <dir>` (a clicked download lands there)', ref: 102, session: 'dlpath', env: { AGENT_BROWSER_DOWNLOAD_PATH: '{TMP}/dlpath' },
    steps: ['--download-path {TMP}/dlpath open {SITE}/download.html', 'click #dl', pause(1500)], check: [file('{TMP}/dlpath/report.txt', 'text')], close: true,
  },
  { id: 'flags.default-timeout', area: 'Flags', cmd: '`AGENT_BROWSER_DEFAULT_TIMEOUT` on a running session', ref: 92, page: '/fixture.html', steps: [{ run: 'get title', env: { AGENT_BROWSER_DEFAULT_TIMEOUT: '1000' } }] },
  { id: 'flags.debug', area: 'Flags', cmd: '`--debug` on a running session', ref: 92, page: '/fixture.html', steps: [{ run: '--debug get title', stderr: 'ignore' }] },
  {
    id: 'flags.state', area: 'Flags', cmd: '`--state <file>` at launch', ref: 93, session: 'withstate',
    setup: [writeFile('{TMP}/given-state.json', JSON.stringify({ cookies: [{ name: 'st', value: 'fromstate', domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' }], origins: [{ origin: '{SITE}', localStorage: [{ name: 'sk', value: 'sv' }] }] }))],
    steps: ['--state {TMP}/given-state.json open {SITE}/page1.html'], check: ['cookies', 'storage local sk'], close: true,
  },
  {
    id: 'flags.restore', area: 'Flags', cmd: '`--restore` saves on close and restores on the next launch', ref: 94, session: 'keep',
    steps: ['--restore open {SITE}/page1.html', 'storage local set rk rv', 'close', { run: '--restore open {SITE}/page1.html', stderr: 'raw' }], check: ['storage local rk'], close: true,
  },
  { id: 'flags.headers', area: 'Flags', cmd: '`--headers <json>` at launch', ref: 95, session: 'hdrs', steps: ['--headers \'{"X-Hdr": "abc"}\' open {SITE}/echo-headers'], check: ['eval "JSON.parse(document.body.innerText)[\'x-hdr\'] ?? \'not sent\'"'], close: true },
  {
    id: 'flags.init-script', area: 'Flags', cmd: '`--init-script <path>`', ref: 96, session: 'init', setup: [writeFile('{TMP}/init.js', "window.__init = 'init-ran';\n")],
    steps: ['--init-script {TMP}/init.js open {SITE}/page1.html'], check: ['eval "window.__init ?? \'missing\'"', 'reload', 'eval "window.__init ?? \'missing\'"'], close: true,
  },
  {
    id: 'flags.color-scheme', area: 'Flags', cmd: '`--color-scheme dark` / `AGENT_BROWSER_COLOR_SCHEME`', ref: 97, session: 'dark',
    steps: ['--color-scheme dark open {SITE}/page1.html'], check: ['eval "matchMedia(\'(prefers-color-scheme: dark)\').matches"'], close: true,
  },
  {
    id: 'flags.extension', area: 'Flags', cmd: '`--extension <dir>` (a content script marks the page)', ref: 102, session: 'ext',
    setup: [
      writeFile('{TMP}/ext/manifest.json', JSON.stringify({ manifest_version: 3, name: 'compat mark', version: '1.0', content_scripts: [{ matches: ['<all_urls>'], js: ['mark.js'], run_at: 'document_start' }] })),
      writeFile('{TMP}/ext/mark.js', "document.documentElement.dataset.mark = 'ext';\n"),
    ],
    steps: ['--extension {TMP}/ext open {SITE}/page1.html'], check: ['eval "document.documentElement.dataset.mark ?? \'none\'"'], close: true,
  },
  { id: 'act.download-unwritable', area: 'Interact', cmd: '`download <sel> <path>` into an unwritable directory', ref: 20, page: '/download.html', steps: ['download #dl /proc/abx-compat/report.txt'] },
  { id: 'diff.screenshot-missing', area: 'Diff', cmd: '`diff screenshot --baseline <missing file>`', ref: 52, page: '/fixture.html', steps: ['diff screenshot --baseline {TMP}/no-such-base.png'] },
  { id: 'flags.provider', area: 'Flags', cmd: '`-p <provider>` without its API key', ref: 98, session: 'prov', steps: ['-p browserbase open {SITE}/page1.html'], check: ['session list'], close: true },
  { id: 'flags.auto-connect', area: 'Flags', cmd: '`--auto-connect` with no Chrome to find', ref: 99, session: 'auto', steps: ['--auto-connect get url'], close: true },
  { id: 'flags.engine', area: 'Flags', cmd: '`--engine lightpanda`', ref: 100, session: 'lp', steps: ['--engine lightpanda open {SITE}/page1.html'] },
  {
    id: 'flags.args', area: 'Flags', cmd: '`--args "--lang=fr-FR"`', ref: 101, session: 'args', env: { AGENT_BROWSER_ARGS: null },
    steps: ['--args "--no-sandbox,--disable-background-networking,--disable-component-update,--disable-sync,--no-first-run,--disable-quic,--lang=fr-FR" open {SITE}/page1.html', 'eval navigator.language'], close: true,
  },
  { id: 'json.lifecycle', area: 'JSON', cmd: '`--json` envelope `data.lifecycle` on a reused browser', ref: 103, page: '/fixture.html', steps: [{ run: '--json get title', volatile: VOLATILE_KEY_WITH_LIFECYCLE }] },

  // ---- Last: closing every session ----------------------------------------------------------
  { id: 'nav.close', area: 'Navigate', cmd: '`close` (`quit`, `exit`)', ref: 6, session: 'closeme', page: '/page1.html', steps: ['close', 'quit', '--session closeme2 open {SITE}/page1.html', '--session closeme2 exit'] },
  { id: 'nav.close-all', area: 'Navigate', cmd: '`close --all`', ref: 6, page: '/page1.html', setup: ['--session second open {SITE}/page2.html'], steps: [{ run: 'close --all', lines: 'unordered' }], check: ['session list'] },
];
