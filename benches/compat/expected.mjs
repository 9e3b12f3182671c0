// Differences we keep on purpose, each with its reason. A row listed here is reported as
// `differs (intended: <reason>)` instead of `differs (unexplained)` — but only while ours' output
// still matches `ours` (when given), so an entry cannot hide a new, different difference.
//
// Keep this table small and reviewed: every entry must also be described in docs/compat.md's
// prose ("Differences left" / "Other deliberate divergences"). A difference that is a bug in ours
// does not belong here; fix it instead.

/** Launch flags left off a later command: ours keeps the running browser. */
const KEEPS_LAUNCH = {
  reason:
    'a later command that omits a launch flag keeps the running browser (upstream silently relaunches it without the flag, losing the page and the setting)',
};

export const EXPECTED = {
  'dialog.dismiss': {
    reason: "while a JavaScript dialog blocks the page, every command's reply carries a warning naming it and how to answer it (stderr), so an agent that did not ask `dialog status` still learns why the page is stuck",
  },
  'dialog.prompt': {
    reason: 'as `dialog.dismiss`: the pending-dialog warning on stderr',
  },
  'flags.no-auto-dialog': {
    reason: 'as `dialog.dismiss`: the pending-dialog warning on stderr',
  },
  'cookies.json': {
    reason: '`--json cookies` keeps every field Chrome reports (`priority`, `sourcePort`, `sourceScheme` added; nothing removed)',
  },
  'dbg.console-json': {
    reason: "`--json console` adds each message's `timestamp` (additive)",
  },
  'dbg.errors-json': {
    reason: "`--json errors` adds `message` and `timestamp` to each error (upstream's entries lack the text: its `errors` prints an empty line)",
  },
  'dbg.stream-json': {
    reason: '`--json stream status` adds `viewers` (how many are connected); additive',
  },
  'dbg.inspect': {
    reason: "`inspect` prints the full DevTools frontend URL for the session's own tab (upstream prints only the origin, which does not open that tab)",
  },
  'dbg.record': {
    reason: "`record start|restart` names the file and fps, then adds where the frames come from (the session's own screencast); additive",
  },
  'js.addinitscript': {
    reason: "`addinitscript`/`removeinitscript` are documented by upstream's README but missing from 0.41.2 (`Unknown command`); abx provides them",
  },
  'js.removeinitscript': {
    reason: "an unknown init-script id is refused in words (`No init script with identifier …`) instead of Chrome's raw CDP error",
  },
  'flags.extension': {
    reason: "`--extension` really loads the extension (abx launches full Chrome for it); upstream 0.41.2's launch did not load it here (the page mark stays `none`)",
  },
  'act.download-unwritable': {
    reason: 'the error names the path that cannot be written and why (upstream: `Failed to create download directory`), same exit code',
  },
  'flags.executable-path': {
    reason: 'the error says the executable was not found at that path and exits before a daemon starts; different words, same exit code',
  },
  'act.input-mode-human-hover': {
    reason: '`--input-mode human` makes `hover` travel along the human path too, like click, dblclick and drag (upstream\'s hover jumps to the element in every input mode)',
    ours: /true/,
  },
  'flags.screenshot-quality-env': {
    reason: 'an `AGENT_BROWSER_SCREENSHOT_QUALITY` outside 0-100 is warned about as the flag is (upstream ignores it without a word)',
    ours: /AGENT_BROWSER_SCREENSHOT_QUALITY must be 0-100, got 101/,
  },
  'session.profile-in-use': {
    reason: 'the second session fails at once naming the profile\'s Chrome pid and its daemon exits, so its `close` succeeds (upstream fails after Chrome gives up, about 5 s, keeps the daemon, and its `close` exits 1)',
    ours: /Browser closed/,
  },
  'setup.doctor-bad-socket-dir': {
    reason: '`doctor` fails (exit 1) when the socket directory cannot be created, since no session could start (upstream reports it as info, "will be created on first use", and exits 0)',
    ours: /Socket directory .* cannot be created/,
  },
  'state.save-load': {
    reason: '`state load` returns the tab to the page it was on after writing each origin\'s storage (upstream leaves it on the last origin\'s root)',
    ours: /page1\.html/,
  },
  'policy.deny': {
    reason: 'an `--action-policy` given to a session already running without it is refused with exit 1 and a hint to close the session (upstream restarts its daemon with the policy)',
    ours: /already running without action policy/,
  },
  'state.manage': {
    reason: 'state files: `state list` prints each file\'s date (upstream prints an empty one), `state show <name>` also looks in the sessions directory and prints a summary (upstream prints `✓ Downloaded to …`), `state rename` works (upstream: `Missing \'path\' parameter`)',
  },
  'state.encrypted': {
    reason: 'encrypted state: the errors name the file and say whether the key is missing or wrong (upstream: `Decryption failed: aead::Error`); files are 0600 (upstream 0644); `state show` prints a summary (upstream prints `✓ Downloaded to …`)',
    ours: /requires AGENT_BROWSER_ENCRYPTION_KEY|is not the key it was saved with/,
  },
  'state.restore': {
    reason: '`--restore`: the saved file is 0600 in a 0700 directory; the close reply carries `statePath`',
  },
  'auth.vault': {
    reason: 'the vault: `auth save` / `auth delete` say what they did (upstream prints `✓ Done`), `auth show` prints the creation date (upstream an empty `Created:`); save/list/show/delete run in the CLI, so the password never reaches the daemon',
  },
  'auth.confirm-actions': {
    reason: '`confirm <id>` checks the id (upstream ignores it and runs whatever is pending)',
  },
  'refuse.engine': {
    reason: '`--engine lightpanda` is refused before a daemon starts, naming the missing binary (upstream starts its daemon and fails on Chrome arguments)',
    ours: /lightpanda/,
  },
  'get.cdp-url-no-browser': {
    reason: 'the error adds what to do (`✗ Browser not launched. Run `agent-browser open` first`); like upstream nothing is launched and the exit code is 1',
    ours: /Browser not launched\. Run/,
  },
  'tab.window-new': {
    reason: '`tab list` re-reads titles from Chrome (upstream shows a stale URL-as-title for tabs opened by URL); `window new` itself prints the same line',
    ours: /Page One/,
  },
  'tab.close-active': {
    reason: '`tab list` shows Chrome\'s title of an untitled tab (`about:blank`) where upstream prints an empty title; which tab is active is the same',
    ours: /→ \[t1\] about:blank/,
  },
  'json.lifecycle': {
    reason: '`data.lifecycle` adds `effectiveLaunch.browser` (which Chrome binary and why) and `timings` (queue, launch and execute ms); upstream\'s keys and values are the same',
  },
  'net.request-detail': {
    reason: '`network request <id>` prints the request line, both header sets and both bodies (upstream prints only the URL); `--json` adds `statusText`',
    ours: /Request headers:/,
  },
  'net.route-status': {
    reason: '`network route --status <code>` sets the mocked status (upstream has no such flag and ignores it: the mock answers 200)',
    ours: /503:down/,
  },
  'net.har-stop-without-start': {
    reason: '`network har stop` without `har start` fails with exit 1 (upstream writes an empty HAR and says it saved 0 requests)',
    ours: /No HAR recording/,
  },
  'dbg.clipboard': {
    reason: '`clipboard read|write` grant the clipboard to the page\'s own origin first, so they work (upstream\'s fail with NotAllowedError in headless Chrome)',
    ours: /clip text/,
  },
  'act.click-stale-ref': {
    reason: 'a ref whose element was replaced fails with `stale_ref` (upstream silently re-resolves it by role and name)',
    ours: /is stale/,
  },
  'act.press-enter-submit': {
    reason: 'an action that starts a navigation returns once the new page has loaded (upstream returns at once and the next command races it)',
    ours: /\/account/,
  },
  'act.click-new-tab': {
    reason: '`tab list` re-reads titles from Chrome (upstream shows a stale URL-as-title for tabs opened by URL)',
    ours: /Fixture Page|Page Two/,
  },
  'tab.list': {
    reason: '`tab list` re-reads titles from Chrome (upstream shows a stale URL-as-title for tabs opened by URL)',
    ours: /Page One/,
  },
  'tab.titles': {
    reason: '`tab list` re-reads titles from Chrome (upstream shows a stale URL-as-title for tabs opened by URL)',
    ours: /Page One|Page Two/,
  },
  'tab.new': {
    reason: '`tab new <url>` returns once the tab has navigated, so the next command sees the page (upstream returns earlier; its next `get url` can still say about:blank)',
    ours: /fixture\.html/,
  },
  'tab.list-json': {
    reason: '`tab list` re-reads titles from Chrome (upstream shows a stale URL-as-title for tabs opened by URL)',
    ours: /Page Two/,
  },
  'dialog.confirm': {
    reason: '`get title` is answered while a confirm is pending (upstream hangs until its CDP timeout, a bug)',
    ours: /Dialogs/,
  },
  'diff.snapshot': {
    reason: 'without `--baseline`, `diff snapshot` compares with the tab\'s previous snapshot (upstream: with an empty baseline, so every line is new)',
  },
  'dbg.errors': {
    reason: 'ours prints each error\'s text (upstream prints an empty `✗ `: it reads a field its daemon never sends)',
    ours: /boom/,
  },
  'storage.clear': {
    reason: 'ours says `✓ Storage cleared` (upstream prints the wrong message, `✓ Request log cleared`)',
    ours: /Storage cleared/,
  },
  'perf.react': {
    reason: '`renders start` answers `✓ Done` as upstream (and records nothing there); the other subcommands say to relaunch with --enable react-devtools in abx\'s own words, without a JavaScript stack',
    ours: /relaunch with --enable react-devtools/,
  },
  'perf.react-devtools': {
    reason: 'abx installs its own DevTools hook, not React\'s DevTools backend: on a page without React it says no renderer is attached (upstream: a JavaScript error with its stack)',
    ours: /No React renderer is attached/,
  },
  'perf.react-fixture': {
    reason: 'the fixture is a fake renderer reporting fibers the way React does; abx reads the fibers directly (tree, props, hooks, renders, Suspense boundaries) while upstream\'s vendored DevTools backend expects a real React build; the text layouts are abx\'s own',
  },
  'perf.webmcp-tools': {
    reason: 'a failed tool reports the exception it threw in `error` (upstream: an empty string); `open` does not announce the page\'s tools (upstream prints a `WebMCP tools changed` notice)',
  },
  'perf.no-webmcp': {
    reason: 'both list no tools; under `--no-webmcp` abx starts Chrome without its WebMCP features, so the fixture page runs and records `off` (no `document.modelContext`); in upstream\'s session the page\'s marker is unset (`undefined`: its script did not get to run to the end; not investigated further)',
    ours: /"off"/,
  },
  'frame.eval': {
    reason: '`eval` in a `frame` scope runs in the iframe (upstream runs it in the top page: its own issue #318)',
    ours: /Inner Frame/,
  },
  'frame.cross-site': {
    reason: '`frame` of a cross-site (out-of-process) iframe works: scripts, input and the snapshot go through the frame\'s own CDP session (upstream: `Frame not found`, exit 1)',
    ours: /Done/,
  },
  'frame.errors': {
    reason: 'ours names what is wrong (`Element not found: #nope …`, `\'h1\' is not an iframe or frame element (it is <h1>)`); upstream says `Could not find frame for selector` for both',
    ours: /not an iframe/,
  },
  'diff.url': {
    reason: '`diff url` prints the snapshot diff and its counts as `diff snapshot` does (upstream prints nothing in text mode); `--json` adds the unified diff text as `diff.diff` and, with `--screenshot`, a `screenshot` pixel comparison (upstream accepts `--screenshot` and ignores it)',
    ours: /additions/,
  },
  'diff.url-same': {
    reason: '`diff url` of identical pages prints `✓ No changes detected` (upstream prints nothing); `--json` adds `diff.diff` (empty here)',
    ours: /No changes detected/,
  },
  'flags.user-agent': KEEPS_LAUNCH,
  'flags.config': KEEPS_LAUNCH,
  'flags.allow-file-access': KEEPS_LAUNCH,
  'flags.debug': KEEPS_LAUNCH,
  'snap.json': {
    reason: "only the latest snapshot's refs resolve in abx, so `removedRefs` lists every earlier ref the new snapshot leaves out, also those a filter (`-i`) dropped; upstream lists only refs whose element is gone",
  },
  'act.press': {
    reason: '`press Shift+C` sends the modifier\'s own keydown and keyup around the key, as a real keyboard (and Playwright) does; upstream sets only the modifier bit, so a page never sees the Shift key',
    ours: /Shift,C/,
  },
  'act.keyboard': {
    reason: "`keyboard type` sends keydown, char and keyup per character (the 'real keystrokes' upstream's help promises); upstream 0.41.2 sends no keydown at all",
  },
  'nav.open-blank': {
    reason: "with launch settings in the environment (AGENT_BROWSER_ARGS), upstream's bare `open` reports the browser as newly started (`reused: false`, so `[agent-browser] launched browser`) although the environment's `launch` just before it started it; abx reports that `launch` reused the running browser, so there is nothing to announce",
  },
  'flags.idle-timeout': {
    reason: "`session list` shows only live sessions: upstream's list still holds the daemons its earlier rows' failed launches left running (`-p` without a key, `--engine lightpanda`, a profile in use, a refused plugin); abx's daemon exits when its launch fails",
  },
  'flags.provider': {
    reason: 'as `flags.idle-timeout`: upstream keeps the daemons of failed launches, so its `session list` is longer',
  },
  'nav.close-all': {
    reason: 'as `flags.idle-timeout`: upstream also closes the daemons its failed launches left behind',
    ours: /Closed session: second/,
  },
  'cap.screenshot-if-changed-json': {
    reason: 'the same values, but a whole `threshold` or `pixelChangeRatio` is written `0` (upstream `0.0`): abx writes every whole number as an integer, as JavaScript does (upstream does so for most fields, not these); equal for any JSON reader',
  },
  'nav.connect-bad-port': {
    reason: "the same opening words (`All CDP discovery methods failed for 127.0.0.1:9:`) and exit code; the detail names the one request abx makes (`GET /json/version failed: …`) where upstream lists its three discovery attempts",
    ours: /All CDP discovery methods failed for 127\.0\.0\.1:9: /,
  },
  'act.mouse': {
    reason: "upstream's side varies with the rows run before it: 49 `mousemove`s after the `find` rows of a full run, 1 when the row runs alone (and 1 after `drag --human` by hand); abx's count is 1 either way",
    ours: /mousemove=1$/m,
  },
};
