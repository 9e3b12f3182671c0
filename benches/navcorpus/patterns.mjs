// The navigation corpus: one entry per way a real site moves a tab from one URL to another, each
// a route of the fixture site (fixtures/src/nav.rs; the table in fixtures/src/lib.rs documents
// them). The harness runs every pattern's steps through upstream 0.41.2 and abx on full Chromium
// and on the headless shell.
//
// A pattern is either
//   { id, group, about, url, lands, ... }   the standard walk (below) to `url`, or
//   { id, group, about, steps: [...] }      a scripted sequence.
//
// The standard walk, from a launcher page (`/nav/links.html?to=<url>`, whose link `#go` points at
// the pattern; two launcher URLs, `&n=1` and `&n=2`, so that history entries stay distinct):
//   open <launcher n=1> (setup) · open <url> · get url · get title · the pattern's `extra` steps
//   (checks of the page `open` reached) · open <launcher n=2> (setup) · click #go ·
//   wait --load load · get url · get title · back · get url · get title. The launchers are titled
//   "Links 1" and "Links 2".
//
// Truth (what the tab really shows; the harness judges each binary against it where it is given,
// and otherwise only compares abx with upstream):
//   lands: { url, title }   the page `open` and the click end on (`title` may be omitted)
//   lands: 'stays'          nothing replaces the page (204, download): `open` may print upstream's
//                           `net::ERR_ABORTED` or the page it stayed on, and get url/title show it
//   lands: { error: /re/ }  `open` fails with exit 1 and that message; the tab shows Chrome's
//                           error page (get url: chrome-error://chromewebdata/ or the failed URL;
//                           its title is not judged)
//   lands: null             not judged (Chrome differs by binary, e.g. a PDF)
//   clickLands              the same for the click when it differs from `open` (Chrome refuses a
//                           page's link to data: and file: URLs)
//   back                    where `back` goes: 'launcher' (default when lands is judged: the
//                           launcher the click started from, or when the click stayed, the page
//                           `open` reached), a { url, title }, a { url, moves: true } (a page that
//                           moves on by itself: only what `back` prints is judged) or null
//   eventually: true        the move happens after the load event (a timer, a refresh of 1 s):
//                           `open` may print the page before it moved or the one it moved to;
//                           a `wait --url` for where it moves comes before get url
//   isolate: true           its own session, closed at the end (cookies, credentials, popups)
//
// Steps of a scripted pattern (placeholders: {SITE} http://127.0.0.1:PORT, {SITE2}
// http://localhost:PORT, {CLOSED} a closed loopback port, {FILEURL} a file: page the harness wrote,
// {SIDE} the side's name, for request tags that must be its own):
//   'get url' | { run: 'get url' | [argv…], label, expect, setup }
//   { spawn: 'open …', as: 'name', until: '/path?query' }  start without waiting, then wait (by
//                           polling the fixture server's /nav/seen, never by a sleep) until the
//                           browser asked for `until`
//   { join: 'name', expect }  wait for a spawned command and record it as this step
// `expect` is one of the judges of lib/judge.mjs.

import { opened, prints, succeeds, fails, either } from './lib/judge.mjs';

const LANDED = (via) => `{SITE}/nav/landed?via=${via}`;
const landed = (via) => ({ url: LANDED(via), title: 'Landed' });

const serverRedirects = [301, 302, 303, 307, 308].map((code) => ({
  id: `redirect-${code}`,
  group: 'server redirect',
  about: `one ${code} to the landing page`,
  url: `{SITE}/nav/redirect?code=${code}`,
  lands: landed(code),
}));

const CLIENT_WHEN = {
  head: 'inline head script',
  body: 'inline script at the end of the body',
  dcl: 'at DOMContentLoaded',
  load: 'from onload',
  timer: '300 ms after the script ran',
};
const CLIENT_HOW = { replace: 'location.replace', assign: 'location.assign', href: 'location.href =' };

const clientRedirects = Object.keys(CLIENT_HOW).flatMap((how) =>
  Object.keys(CLIENT_WHEN).map((when) => ({
    id: `client-${how}-${when}`,
    group: 'client redirect',
    about: `${CLIENT_HOW[how]} ${CLIENT_WHEN[when]}`,
    url: `{SITE}/nav/client?how=${how}&when=${when}`,
    lands: landed(`${how}-${when}`),
    eventually: when === 'timer',
    // location.replace leaves no entry behind, and assign and href during the load replace the
    // entry too: back goes to the launcher. After the load they push one: back is the client
    // page, whose timer (unless it comes back from the back/forward cache) moves it on again.
    ...(how !== 'replace' && when === 'timer' ? { back: { url: `{SITE}/nav/client?how=${how}&when=${when}`, moves: true } } : {}),
  })),
);

/** The standard walk's extra: what the landing page says about how it was reached. */
const search = (text) => ({ run: 'get text #search', expect: prints(text) });

export const PATTERNS = [
  ...serverRedirects,
  {
    id: 'redirect-chain',
    group: 'server redirect',
    about: 'four hops: 301, 302, 303, 307',
    url: '{SITE}/nav/chain?hops=4',
    lands: landed('chain-301-302-303-307'),
    extra: [search('?via=chain-301-302-303-307')],
  },
  {
    id: 'redirect-cross-origin',
    group: 'server redirect',
    about: '302 from 127.0.0.1 to localhost (another site)',
    url: '{SITE}/nav/cross',
    lands: { url: '{SITE2}/nav/landed?via=cross', title: 'Landed' },
    extra: [{ run: 'get text #host', expect: prints('localhost:{PORT}') }],
  },
  {
    id: 'redirect-to-404',
    group: 'server redirect',
    about: 'two hops ending on an HTML 404 page',
    url: '{SITE}/nav/chain?hops=2&end=/nav/missing',
    lands: { url: '{SITE}/nav/missing?via=chain-301-302', title: 'Missing Page' },
  },
  {
    id: 'redirect-sets-cookie',
    group: 'server redirect',
    about: 'a 302 hop that sets a cookie; the landing page shows it',
    url: '{SITE}/nav/set-cookie',
    lands: landed('cookie'),
    isolate: true,
    extra: [{ run: 'get text #cookie', expect: prints('hop') }],
  },
  ...clientRedirects,
  {
    id: 'meta-refresh-0',
    group: 'client redirect',
    about: '<meta http-equiv=refresh content=0>',
    url: '{SITE}/nav/meta?delay=0',
    lands: landed('meta-0'),
  },
  {
    id: 'meta-refresh-1',
    group: 'client redirect',
    about: '<meta http-equiv=refresh content=1>',
    url: '{SITE}/nav/meta?delay=1',
    lands: landed('meta-1'),
    eventually: true,
  },
  {
    id: 'form-post-auto',
    group: 'form post',
    about: 'a form submitted by an inline script, POST answered 303',
    url: '{SITE}/nav/form?auto=1',
    lands: landed('form-auto'),
  },
  {
    id: 'form-post-button',
    group: 'form post',
    about: 'a form submitted by clicking its button, POST answered 303',
    steps: [
      { run: 'open {SITE}/nav/form', expect: opened('{SITE}/nav/form', 'Form button') },
      { run: 'click #send', expect: succeeds() },
      { run: 'wait --load load', expect: succeeds() },
      { run: 'get url', expect: prints(LANDED('form-button')) },
      { run: 'get title', expect: prints('Landed') },
      { run: 'back', expect: prints('{SITE}/nav/form') },
      { run: 'get title', expect: prints('Form button') },
    ],
  },
  {
    id: 'history-push-load',
    group: 'history API',
    about: 'history.pushState from onload (URL and title change)',
    url: '{SITE}/nav/history?op=push&when=load',
    lands: { url: '{SITE}/nav/pushed?op=push', title: 'After pushState' },
    back: { url: '{SITE}/nav/history?op=push&when=load', title: 'After pushState' },
  },
  {
    id: 'history-replace-load',
    group: 'history API',
    about: 'history.replaceState from onload',
    url: '{SITE}/nav/history?op=replace&when=load',
    lands: { url: '{SITE}/nav/pushed?op=replace', title: 'After replaceState' },
  },
  ...['push', 'replace'].map((op) => ({
    id: `history-${op}-button`,
    group: 'history API',
    about: `history.${op}State from a button`,
    steps: [
      { run: 'open {SITE}/page1.html', expect: opened('{SITE}/page1.html', 'Page One'), setup: true },
      { run: `open {SITE}/nav/history?op=${op}&when=button`, expect: opened(`{SITE}/nav/history?op=${op}&when=button`, `History ${op} button`) },
      { run: 'click #change', expect: succeeds() },
      { run: 'get url', expect: prints(`{SITE}/nav/pushed?op=${op}`) },
      { run: 'get title', expect: prints(`After ${op}State`) },
      // push: back is the entry before the push, in the same document (its title stays);
      // replace: the entry was replaced, back leaves the document.
      ...(op === 'push'
        ? [
            { run: 'back', expect: prints('{SITE}/nav/history?op=push&when=button') },
            { run: 'get title', expect: prints('After pushState') },
            { run: 'get text #popped', expect: prints('popstate null') },
          ]
        : [
            { run: 'back', expect: prints('{SITE}/page1.html') },
            { run: 'get title', expect: prints('Page One') },
          ]),
    ],
  })),
  {
    id: 'fragment-cross-document',
    group: 'fragment',
    about: 'a page opened at #part2 from another page',
    url: '{SITE}/nav/anchors.html#part2',
    lands: { url: '{SITE}/nav/anchors.html#part2', title: 'Anchors' },
    extra: [{ run: 'get text #hash', expect: prints('#part2') }],
  },
  {
    id: 'fragment-same-document',
    group: 'fragment',
    about: 'the same page opened again with another fragment, a fragment link, back',
    steps: [
      { run: 'open {SITE}/nav/anchors.html#part2', expect: opened('{SITE}/nav/anchors.html#part2', 'Anchors') },
      { run: 'open {SITE}/nav/anchors.html#part3', expect: opened('{SITE}/nav/anchors.html#part3', 'Anchors') },
      { run: 'get text #hash', expect: prints('#part3') },
      { run: 'click #to-part1', expect: succeeds() },
      { run: 'get url', expect: prints('{SITE}/nav/anchors.html#part1') },
      { run: 'back', expect: prints('{SITE}/nav/anchors.html#part3') },
      { run: 'get text #hash', expect: prints('#part3') },
    ],
  },
  ...[204, 205].map((code) => ({
    id: `status-${code}`,
    group: 'no content',
    about: `an empty ${code} answer: the tab stays where it was`,
    url: `{SITE}/nav/status?code=${code}`,
    lands: 'stays',
  })),
  {
    id: 'download',
    group: 'content',
    about: 'a text file sent as an attachment',
    url: '{SITE}/nav/download',
    lands: 'stays',
  },
  {
    id: 'pdf',
    group: 'content',
    about: 'a small PDF (application/pdf): a download on the shell, the viewer on full Chrome',
    url: '{SITE}/nav/doc.pdf',
    lands: null,
  },
  {
    id: 'json',
    group: 'content',
    about: 'application/json reached by navigation',
    url: '{SITE}/nav/data.json',
    lands: { url: '{SITE}/nav/data.json' },
    extra: [{ run: 'get text body', expect: prints('{"corpus":"nav","ok":true}') }],
  },
  {
    id: 'text',
    group: 'content',
    about: 'text/plain reached by navigation',
    url: '{SITE}/nav/note.txt',
    lands: { url: '{SITE}/nav/note.txt' },
  },
  {
    id: 'data-url',
    group: 'url scheme',
    about: 'a data:text/html URL (a page may not link to one: the click stays)',
    url: 'data:text/html,%3Ctitle%3EData%20Page%3C/title%3E%3Ch1%3EData%20Page%3C/h1%3E',
    lands: { url: 'data:text/html,%3Ctitle%3EData%20Page%3C/title%3E%3Ch1%3EData%20Page%3C/h1%3E', title: 'Data Page' },
    clickLands: 'stays',
  },
  {
    id: 'about-blank',
    group: 'url scheme',
    about: 'about:blank',
    url: 'about:blank',
    lands: { url: 'about:blank', title: '' },
  },
  {
    id: 'file-url',
    group: 'url scheme',
    about: 'a file: page the harness wrote (a page may not link to one: the click stays)',
    url: '{FILEURL}',
    lands: { url: '{FILEURL}', title: 'File Page' },
    clickLands: 'stays',
  },
  {
    id: 'connection-refused',
    group: 'error',
    about: 'a closed loopback port',
    url: 'http://127.0.0.1:{CLOSED}/',
    lands: { error: /net::ERR_CONNECTION_REFUSED/ },
  },
  {
    id: 'unknown-host',
    group: 'error',
    about: 'http://nonexistent.invalid/',
    url: 'http://nonexistent.invalid/',
    lands: { error: /net::ERR_NAME_NOT_RESOLVED/ },
  },
  {
    id: 'not-found',
    group: 'error',
    about: 'a 404 with an HTML page',
    url: '{SITE}/nav/missing',
    lands: { url: '{SITE}/nav/missing', title: 'Missing Page' },
  },
  {
    id: 'server-error',
    group: 'error',
    about: 'a 500 with an HTML page',
    url: '{SITE}/nav/server-error',
    lands: { url: '{SITE}/nav/server-error', title: 'Server Error Page' },
  },
  {
    id: 'slow-first-byte',
    group: 'slow',
    about: 'the first byte after 1.5 s',
    url: '{SITE}/slow?ms=1500',
    lands: { url: '{SITE}/slow?ms=1500', title: 'Slow' },
  },
  {
    id: 'stuck-image',
    group: 'slow',
    about: 'DOMContentLoaded fires, an image never finishes (no load event)',
    url: '{SITE}/nav/stuck?res=img',
    lands: { url: '{SITE}/nav/stuck?res=img', title: 'Stuck img' },
    loadNeverFires: true,
  },
  {
    id: 'stuck-stylesheet',
    group: 'slow',
    about: 'a head stylesheet never finishes (no load event, no first paint)',
    url: '{SITE}/nav/stuck?res=css',
    lands: { url: '{SITE}/nav/stuck?res=css', title: 'Stuck css' },
    loadNeverFires: true,
  },
  {
    id: 'interrupt-second-open',
    group: 'interrupted',
    about: 'open of a URL that never answers, interrupted by a second open from another process',
    steps: [
      { run: 'open {SITE}/page1.html', expect: opened('{SITE}/page1.html', 'Page One'), setup: true },
      { spawn: 'open {SITE}/never?side={SIDE}&n=second-open', as: 'first', until: '/never?side={SIDE}&n=second-open' },
      { run: 'open {SITE}/nav/landed?via=second-open', expect: opened(LANDED('second-open'), 'Landed') },
      // The page it asked for never came: it fails (it must not hang).
      { join: 'first', label: 'open {SITE}/never (the first)', expect: fails(/./) },
      { run: 'get url', expect: prints(LANDED('second-open')) },
      { run: 'get title', expect: prints('Landed') },
    ],
  },
  {
    id: 'interrupt-page-redirect',
    group: 'interrupted',
    about: 'a page still loading (an image never finishes) calls location.replace after 100 ms',
    url: '{SITE}/nav/client?how=replace&when=timer&ms=100&hold=1&to=%2Fnav%2Flanded%3Fvia%3Dloading-redirect',
    lands: landed('loading-redirect'),
  },
  {
    id: 'interrupt-back',
    group: 'interrupted',
    about: 'open of a URL that never answers, interrupted by back from another process',
    steps: [
      { run: 'open {SITE}/page1.html', expect: opened('{SITE}/page1.html', 'Page One'), setup: true },
      { run: 'open {SITE}/page2.html', expect: opened('{SITE}/page2.html', 'Page Two'), setup: true },
      { spawn: 'open {SITE}/never?side={SIDE}&n=back', as: 'first', until: '/never?side={SIDE}&n=back' },
      { run: 'back', expect: prints('{SITE}/page1.html') },
      { join: 'first', label: 'open {SITE}/never (interrupted)', expect: fails(/./) },
      { run: 'get url', expect: prints('{SITE}/page1.html') },
      { run: 'get title', expect: prints('Page One') },
    ],
  },
  {
    id: 'reload-during-load',
    group: 'interrupted',
    about: 'reload while a page is still loading (its image takes 2.5 s)',
    steps: [
      { run: 'open {SITE}/page1.html', expect: opened('{SITE}/page1.html', 'Page One'), setup: true },
      { spawn: 'open {SITE}/nav/slow-sub?ms=2500&tag={SIDE}-reload', as: 'first', until: '/slow?ms=2500&from={SIDE}-reload' },
      { run: 'reload', expect: prints('{SITE}/nav/slow-sub?ms=2500&tag={SIDE}-reload') },
      // The page answered and only its image is still loading: the reload waits for the open,
      // which prints the page; the tab ends on it, reloaded.
      {
        join: 'first',
        label: 'open {SITE}/nav/slow-sub (reloaded meanwhile)',
        expect: opened('{SITE}/nav/slow-sub?ms=2500&tag={SIDE}-reload', 'Slow subresource'),
      },
      { run: 'get url', expect: prints('{SITE}/nav/slow-sub?ms=2500&tag={SIDE}-reload') },
      { run: 'get title', expect: prints('Slow subresource') },
    ],
  },
  {
    id: 'beforeunload',
    group: 'leaving',
    about: 'a beforeunload handler that asks to stay: open elsewhere, then a link click',
    isolate: true,
    steps: [
      { run: 'open {SITE}/nav/beforeunload', expect: opened('{SITE}/nav/beforeunload', 'Before Unload') },
      { run: 'click #arm', expect: succeeds() },
      { run: 'open {SITE}/page2.html', expect: null },
      { run: 'get url', expect: null },
      { run: 'open {SITE}/nav/beforeunload', expect: null },
      { run: 'click #arm', expect: null },
      { run: 'click #leave', expect: null },
      { run: 'dialog status', expect: null },
      { run: 'get url', expect: null },
    ],
  },
  {
    id: 'iframes-navigate',
    group: 'frames',
    about: 'iframes that redirect themselves (script, timer, 302, cross-site script); the top stays',
    url: '{SITE}/nav/iframes',
    lands: { url: '{SITE}/nav/iframes', title: 'Iframe Navigations' },
  },
  {
    id: 'window-open-onload',
    group: 'popups',
    about: 'window.open from onload (upstream makes the popup the active tab)',
    isolate: true,
    steps: [
      { run: 'open {SITE}/nav/window-open', expect: opened('{SITE}/nav/window-open', 'Window Open') },
      { run: 'tab list', expect: null },
      { run: 'get url', expect: null },
      { run: 'get title', expect: null },
    ],
  },
  {
    id: 'back-forward-server-redirect',
    group: 'back/forward',
    about: 'back and forward across a 302',
    steps: [
      { run: 'open {SITE}/page1.html', expect: opened('{SITE}/page1.html', 'Page One'), setup: true },
      { run: 'open {SITE}/nav/redirect?code=302', expect: opened(LANDED('302'), 'Landed') },
      { run: 'back', expect: prints('{SITE}/page1.html') },
      { run: 'forward', expect: prints(LANDED('302')) },
      { run: 'get title', expect: prints('Landed') },
    ],
  },
  {
    id: 'back-forward-client-redirect',
    group: 'back/forward',
    about: 'back and forward across a location.replace',
    steps: [
      { run: 'open {SITE}/page1.html', expect: opened('{SITE}/page1.html', 'Page One'), setup: true },
      { run: 'open {SITE}/nav/client?how=replace&when=head', expect: opened(LANDED('replace-head'), 'Landed') },
      { run: 'back', expect: prints('{SITE}/page1.html') },
      { run: 'forward', expect: prints(LANDED('replace-head')) },
      { run: 'get title', expect: prints('Landed') },
    ],
  },
  {
    id: 'back-forward-cache',
    group: 'back/forward',
    about: 'back to a page the back/forward cache can restore, then forward',
    steps: [
      { run: 'open {SITE}/nav/bfcache', expect: opened('{SITE}/nav/bfcache', 'BFCache') },
      { run: 'click #to-page2', expect: succeeds() },
      { run: 'wait --load load', expect: succeeds() },
      { run: 'get title', expect: prints('Page Two') },
      { run: 'back', expect: prints('{SITE}/nav/bfcache') },
      { run: 'get text #shown', expect: null },
      { run: 'forward', expect: prints('{SITE}/page2.html') },
      { run: 'get title', expect: prints('Page Two') },
    ],
  },
  {
    id: 'basic-auth',
    group: 'auth',
    about: 'an HTTP Basic challenge, without and with credentials',
    isolate: true,
    steps: [
      // The shell shows the 401 page; full Chrome cancels the challenge it cannot answer.
      {
        run: 'open {SITE}/basic-auth',
        expect: either(opened('{SITE}/basic-auth', '401 Unauthorized'), fails(/net::ERR_INVALID_AUTH_CREDENTIALS/)),
      },
      { run: 'set credentials alice secret', expect: succeeds() },
      { run: 'open {SITE}/basic-auth', expect: opened('{SITE}/basic-auth', 'Authorized') },
      { run: 'get text #who', expect: prints('alice') },
    ],
  },
];
