//! Page JavaScript: what the engine runs in pages lives in `.js` files next to the module that
//! uses it (`actions/clear.js` for `actions.rs`, …), included with `include_str!` and checked for
//! syntax in CI (`scripts/check-js.sh`).
//!
//! Every file is one expression: a parenthesized function expression (`(function (a, b) { … })`)
//! or an immediately invoked one for document scripts. A function is called either through
//! `Runtime.callFunctionOn` with its arguments as CDP call arguments ([`PageFn::source`]), or, on
//! `Runtime.evaluate`, which has no arguments, as an expression [`PageFn::call`] builds: the
//! arguments become JSON literals, so data never becomes code. The one deliberate exception is
//! code the caller gives us to run ([`PageFn::call_with_code`], `wait --fn`).

use abx_cdp::protocol::js_protocol::runtime;
use serde_json::Value;

use crate::error::{EngineError, Result};

/// `Runtime.evaluate` of one of our expressions, its result by value.
pub(crate) fn evaluate(expression: impl Into<String>) -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        return_by_value: Some(true),
        ..runtime::EvaluateParams::new(expression)
    }
}

/// `Runtime.callFunctionOn` of `function` with `this` = the remote object `object_id`, the
/// result by value.
pub(crate) fn call_on(
    object_id: &str,
    function: PageFn,
    args: &[Value],
) -> runtime::CallFunctionOnParams {
    runtime::CallFunctionOnParams {
        object_id: Some(object_id.to_string().into()),
        arguments: (!args.is_empty()).then(|| args.iter().map(by_value).collect()),
        return_by_value: Some(true),
        ..runtime::CallFunctionOnParams::new(function.source())
    }
}

/// A call argument given by value.
pub(crate) fn by_value(value: &Value) -> runtime::CallArgument {
    runtime::CallArgument {
        value: Some(value.clone()),
        ..Default::default()
    }
}

/// A call argument naming a remote object.
pub(crate) fn by_object(object_id: &str) -> runtime::CallArgument {
    runtime::CallArgument {
        object_id: Some(object_id.to_string().into()),
        ..Default::default()
    }
}

/// What an exception says: its description (message and stack), else the thrown value when it
/// is a string, else the exception's text.
pub(crate) fn exception_text(details: &runtime::ExceptionDetails) -> String {
    let thrown = details.exception.as_ref();
    thrown
        .and_then(|e| e.description.clone())
        .or_else(|| {
            thrown
                .and_then(|e| e.value.as_ref())
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| details.text.clone())
}

/// The value a by-value evaluation produced (`null` for `undefined`), or the page's exception
/// as [`EngineError::Evaluation`].
pub(crate) fn value_of(
    result: runtime::RemoteObject,
    exception: Option<&runtime::ExceptionDetails>,
) -> Result<Value> {
    if let Some(details) = exception {
        return Err(EngineError::Evaluation(exception_text(details)));
    }
    Ok(result.value.unwrap_or(Value::Null))
}

/// A page function: the text of one `.js` file, a parenthesized function expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PageFn(&'static str);

impl PageFn {
    /// Wraps the text of a `.js` file (`PageFn::new(include_str!("module/name.js"))`).
    pub(crate) const fn new(source: &'static str) -> PageFn {
        PageFn(source)
    }

    /// The function's source, as `Runtime.callFunctionOn` takes it (`functionDeclaration`).
    pub(crate) fn source(self) -> &'static str {
        self.0
    }

    /// An expression that calls the function with `args`, each written as a JSON literal.
    pub(crate) fn call(self, args: &[Value]) -> String {
        let args: Vec<String> = args.iter().map(Value::to_string).collect();
        format!("{}({})", self.0.trim_end(), args.join(", "))
    }

    /// An expression that calls the function with `this` = the value of `this` (one of this
    /// crate's own expressions, e.g. `document`) and `args` as JSON literals.
    pub(crate) fn call_on(self, this: &str, args: &[Value]) -> String {
        let mut parts = vec![this.to_string()];
        parts.extend(args.iter().map(Value::to_string));
        format!("{}.call({})", self.0.trim_end(), parts.join(", "))
    }

    /// An expression that calls the function with the values of `args`: JavaScript expressions
    /// this crate built itself (a [`PageFn`] call or a template whose data are JSON literals),
    /// never text from a caller.
    pub(crate) fn call_exprs(self, args: &[&str]) -> String {
        format!("{}({})", self.0.trim_end(), args.join(", "))
    }

    /// This wrapper with `inner` put in where the wrapper names `__ABX_FUNCTION__`: both are our
    /// own files, composed into one function for one `Runtime.callFunctionOn`.
    pub(crate) fn wrap(self, inner: PageFn) -> String {
        self.0.replace("__ABX_FUNCTION__", inner.0.trim_end())
    }

    /// An expression that calls the function with `args` (JSON literals) and, last, an async
    /// function returning the value of `code`: the caller's own JavaScript, run as code by
    /// design (`wait --fn`).
    pub(crate) fn call_with_code(self, args: &[Value], code: &str) -> String {
        let mut parts: Vec<String> = args.iter().map(Value::to_string).collect();
        parts.push(format!("async () => ({code}\n)"));
        format!("{}({})", self.0.trim_end(), parts.join(", "))
    }
}

/// The object id of an evaluation result that is a DOM node (`None` for `null` and non-nodes).
pub(crate) fn element_object(result: &runtime::RemoteObject) -> Option<String> {
    let node = result.subtype == Some(runtime::RemoteObjectSubtype::Node);
    result
        .object_id
        .as_ref()
        .filter(|_| node)
        .map(|id| id.as_ref().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_json_literals_so_data_never_becomes_code() {
        let f = PageFn::new("(function (a, b) { return [a, b]; })\n");
        assert_eq!(
            f.call(&[json!("x\"); alert(1); (\""), json!(3)]),
            r#"(function (a, b) { return [a, b]; })("x\"); alert(1); (\"", 3)"#
        );
        assert_eq!(
            f.call_on("document", &[json!(null)]),
            "(function (a, b) { return [a, b]; }).call(document, null)"
        );
        assert_eq!(
            f.call_on("document", &[]),
            "(function (a, b) { return [a, b]; }).call(document)"
        );
        assert_eq!(
            f.call_exprs(&["document.body", "2"]),
            "(function (a, b) { return [a, b]; })(document.body, 2)"
        );
        assert_eq!(
            f.call_with_code(&[json!(1)], "window.ready // the caller's code"),
            "(function (a, b) { return [a, b]; })(1, async () => (window.ready // the caller's code\n))"
        );
    }

    /// `Runtime.callFunctionOn` compiles `(` + source + `)`; `scripts/check-js.sh` parses every
    /// file that way, and this keeps each one a single expression with nothing after it (a
    /// trailing `;` or `// comment` would break the wrapping or [`PageFn::call`]).
    #[test]
    fn every_page_script_is_one_parenthesized_expression() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("read src").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "js") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        assert!(files.len() > 20, "{} page scripts", files.len());
        for file in files {
            let source = std::fs::read_to_string(&file).expect("read script");
            let name = file.display();
            let text = source.trim();
            assert!(text.starts_with('('), "{name} does not start with '('");
            assert!(
                text.ends_with(')'),
                "{name} must end with ')' (no ';' or comment)"
            );
        }
    }
}
