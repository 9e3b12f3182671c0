#!/usr/bin/env bash
# Checks the JavaScript abx runs in pages: every file parses the way Chrome will compile it, and
# ESLint (pinned in scripts/jslint, installed here with `npm ci`) finds no undefined name, unused
# binding, redeclaration or other mistake in it.
#
# The engine and the CLI keep the JavaScript they run in pages in .js files next to the Rust
# modules that use them (`include_str!`), in crates/ and cli/. Each one is a single expression: a
# function expression that Chrome's `Runtime.callFunctionOn` compiles as `(` + source + `)`, or an
# immediately invoked function for `Runtime.evaluate` / `Page.addScriptToEvaluateOnNewDocument`.
# So each file must parse as a classic script (not a module: no top-level `await`, `import` or
# `return`) both as it is and wrapped in parentheses. Fixture pages' scripts only need to parse as
# scripts; they are linted too.
# The benches written in JavaScript (benches/**/*.mjs) are syntax-checked too.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null; then
    echo "check-js: node is not installed (apt-get install nodejs)" >&2
    exit 1
fi
mapfile -t page < <(find crates cli -name '*.js' -not -path '*/target/*' -not -path '*/node_modules/*' -not -path '*/examples/ts/dist/*' | sort)
mapfile -t fixture < <(find fixtures -name '*.js' -not -path '*/target/*' | sort)
node - "${#page[@]}" "${page[@]}" "${fixture[@]}" <<'JS'
const fs = require('fs');
const vm = require('vm');
const [count, ...files] = process.argv.slice(2);
let failed = 0;
files.forEach((file, i) => {
  const source = fs.readFileSync(file, 'utf8');
  const forms = [['as a script', source]];
  if (i < Number(count)) forms.push(['as one expression (callFunctionOn wraps it in parentheses)', '(' + source + ')']);
  for (const [how, text] of forms) {
    try {
      new vm.Script(text, { filename: file });
    } catch (err) {
      failed++;
      console.error(`${file}: does not parse ${how}: ${err.message}`);
    }
  }
});
if (failed) process.exit(1);
console.log(`check-js: ${files.length} files parse (${count} page scripts, ${files.length - count} fixture scripts)`);
JS

# ESLint, pinned by scripts/jslint/package-lock.json. `npm ci` runs again only when the lock file
# changed since the last install (a stamp in node_modules), so a warm run costs nothing.
jslint=scripts/jslint
stamp="$jslint/node_modules/.abx-package-lock.json"
if ! cmp -s "$jslint/package-lock.json" "$stamp" || [ ! -x "$jslint/node_modules/.bin/eslint" ]; then
    if ! command -v npm >/dev/null; then
        echo "check-js: npm is not installed, and ESLint comes from the npm registry (apt-get install npm)" >&2
        exit 1
    fi
    if ! (cd "$jslint" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
        echo "check-js: cannot install ESLint: \`npm ci\` in $jslint failed. It needs the npm registry" >&2
        echo "  (registry.npmjs.org, or the one \`npm config get registry\` names) or an npm cache that" >&2
        echo "  already holds the packages of $jslint/package-lock.json. The page JavaScript is not linted." >&2
        exit 1
    fi
    cp "$jslint/package-lock.json" "$stamp"
fi
"$jslint/node_modules/.bin/eslint" --config "$jslint/eslint.config.mjs" --max-warnings 0 \
    "${page[@]}" "${fixture[@]}"
echo "check-js: ESLint finds nothing in ${#page[@]} page scripts and ${#fixture[@]} fixture scripts"

# The benches written in JavaScript (benches/**/*.mjs) must parse, and the side-by-side bench's
# 20 commands must stay those of benches/support/twenty_commands.rs (no network, no Chrome).
mapfile -t bench < <(find benches -name '*.mjs' -not -path '*/node_modules/*' | sort)
for file in "${bench[@]}"; do
  node --check "$file" || { echo "check-js: $file does not parse" >&2; exit 1; }
done
node benches/side_by_side/sbs.mjs --self-check
echo "check-js: ${#bench[@]} bench scripts parse"
