//! Property tests for the NDJSON request parser: any bytes give a request or a typed refusal,
//! never a panic, and valid requests round-trip.

use abx_daemon::protocol::{LineError, parse_line};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        match parse_line(&bytes) {
            Ok(request) => prop_assert!(!request.action.is_empty()),
            Err(LineError::Invalid(message)) => prop_assert!(!message.is_empty()),
            Err(LineError::Blank) | Err(LineError::Http) => {}
        }
    }

    #[test]
    fn arbitrary_json_values_never_panic(value in arb_json()) {
        let text = value.to_string();
        match parse_line(text.as_bytes()) {
            Ok(request) => {
                prop_assert_eq!(Some(request.action.as_str()), value.get("action").and_then(|a| a.as_str()));
            }
            Err(LineError::Invalid(message)) => prop_assert!(message.starts_with("Invalid")),
            Err(other) => prop_assert!(false, "unexpected {:?} for {}", other, text),
        }
    }

    #[test]
    fn valid_requests_round_trip(action in "[a-z_]{1,20}", id in "r[0-9]{1,6}", key in "[a-zA-Z]{1,10}", value in ".{0,200}") {
        // A generated key equal to `id` or `action` would overwrite them (the test's own flaw).
        prop_assume!(key != "id" && key != "action");
        let line = serde_json::json!({"id": id, "action": action, key.clone(): value.as_str()}).to_string();
        let request = parse_line(line.as_bytes()).expect("valid request");
        prop_assert_eq!(request.action, action);
        prop_assert_eq!(request.id, serde_json::json!(id));
        if key != "id" && key != "action" {
            prop_assert_eq!(request.params.get(&key).and_then(|v| v.as_str()), Some(value.as_str()));
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed(depth in 65usize..50_000) {
        let line = format!("{{\"action\":\"x\",\"a\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
        prop_assert!(matches!(parse_line(line.as_bytes()), Err(LineError::Invalid(_))));
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        ".{0,40}".prop_map(serde_json::Value::String),
        Just(serde_json::json!("url")),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::Array),
            proptest::collection::hash_map(
                prop_oneof![
                    Just("action".to_string()),
                    Just("id".to_string()),
                    "[a-z]{1,8}".prop_map(|s| s)
                ],
                inner,
                0..8
            )
            .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}
