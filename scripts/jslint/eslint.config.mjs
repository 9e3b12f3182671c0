// ESLint for the JavaScript abx runs in pages (scripts/check-js.sh runs it over every page
// script in crates/ and cli/).
//
// Each file is one expression that Chrome compiles as a classic script (`Runtime.evaluate`,
// `Page.addScriptToEvaluateOnNewDocument`) or as the function of `Runtime.callFunctionOn`: so
// `sourceType: "script"`, the browser's globals and nothing else (no Node, no modules). A name
// the page itself provides (a library the engine injected first) is declared in the file with a
// `/* global name */` comment, where the reader sees it.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "script",
      globals: {
        ...globals.browser,
        // The engine's template holes (crates/engine/src/js.rs `PageFn::wrap`, locate.rs): Rust
        // puts a function's source there before the script is sent, so they are never names at
        // run time. Declared here, not in the files: a comment naming them would be filled too.
        __ABX_FUNCTION__: "readonly",
        __ABX_THEN__: "readonly",
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: "error",
    },
    rules: {
      // In recommended already; listed because they are why the linter is here.
      "no-undef": "error",
      "no-redeclare": "error",
      // `_name`: a binding kept on purpose (a loop that only counts, a positional parameter).
      "no-unused-vars": [
        "error",
        { args: "after-used", caughtErrors: "none", varsIgnorePattern: "^_", argsIgnorePattern: "^_" },
      ],
      // A page script must not leak names into the page it runs in.
      "no-implicit-globals": "error",
      "no-shadow-restricted-names": "error",
      // `try { … } catch {}` is how a page script says "this page may not allow it".
      "no-empty": ["error", { allowEmptyCatch: true }],
      "no-self-compare": "error",
      "no-unmodified-loop-condition": "error",
      "no-unreachable-loop": "error",
      "no-constant-binary-expression": "error",
      "no-template-curly-in-string": "error",
      "no-unused-private-class-members": "error",
      eqeqeq: ["error", "always", { null: "ignore" }],
    },
  },
];
