#!/usr/bin/env bash
# Checks that every page JavaScript file parses, the way Chrome will compile it.
#
# The engine keeps the JavaScript it runs in pages in .js files next to the Rust modules that use
# them (`include_str!`). Each one is a single expression: a function expression that Chrome's
# `Runtime.callFunctionOn` compiles as `(` + source + `)`, or an immediately invoked function for
# `Runtime.evaluate` / `Page.addScriptToEvaluateOnNewDocument`. So each file must parse as a
# classic script (not a module: no top-level `await`, `import` or `return`) both as it is and
# wrapped in parentheses. Fixture pages' scripts only need to parse as scripts.
# The benches written in JavaScript (benches/**/*.mjs) are syntax-checked too.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null; then
    echo "check-js: node is not installed (apt-get install nodejs)" >&2
    exit 1
fi
mapfile -t page < <(find crates -name '*.js' -not -path '*/target/*' -not -path '*/node_modules/*' -not -path '*/examples/ts/dist/*' | sort)
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

# The benches written in JavaScript (benches/**/*.mjs) must parse, and the side-by-side bench's
# 20 commands must stay those of benches/support/twenty_commands.rs (no network, no Chrome).
mapfile -t bench < <(find benches -name '*.mjs' -not -path '*/node_modules/*' | sort)
for file in "${bench[@]}"; do
  node --check "$file" || { echo "check-js: $file does not parse" >&2; exit 1; }
done
node benches/side_by_side/sbs.mjs --self-check
echo "check-js: ${#bench[@]} bench scripts parse"
