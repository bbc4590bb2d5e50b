use super::*;

/// The text with the secrets it holds redacted (not those of runs going in this test
/// process).
fn own(text: &str) -> String {
    workload_redactor(text).redact(text).into_owned()
}

#[test]
fn block_style_plain_secret_is_replaced_and_nothing_else_changes() {
    let text = "name: x\ntarget:\n  credentials:\n    access_key: AKIDEXAMPLE\n    secret_key: s3cr3t/abc # inline\nbuckets: { names: [b1] }\n";
    let out = own(text);
    assert_eq!(
        out,
        text.replace("s3cr3t/abc", REDACTED)
            .replace("AKIDEXAMPLE", REDACTED)
    );
}

#[test]
fn flow_and_quoted_secrets_are_replaced() {
    let text =
        "target: { credentials: { access_key: AKID, secret_key: \"q\\\"uote\" } }\nname: y\n";
    assert_eq!(
        own(text),
        "target: { credentials: { access_key: <redacted>, secret_key: \"<redacted>\" } }\nname: y\n"
    );
    let text = "target: { credentials: { access_key: AKID, secret_key: 'it''s' } }\n";
    assert!(!own(text).contains("it''s"));
    let text = "target: { credentials: { access_key: AKID, secret_key: plain } }\n";
    assert_eq!(
        own(text),
        "target: { credentials: { access_key: <redacted>, secret_key: <redacted> } }\n"
    );
}

#[test]
fn block_scalars_are_replaced_line_by_line() {
    let text = "target:\n  credentials:\n    access_key: AKIDEXAMPLE\n    secret_key: |\n      first-half-of-it\n      second-half-of-it\n    session_token: >-\n      folded-token-part-one\n      folded-token-part-two\nname: z\n";
    let out = own(text);
    for part in [
        "first-half-of-it",
        "second-half-of-it",
        "folded-token-part-one",
        "folded-token-part-two",
        "AKIDEXAMPLE",
    ] {
        assert!(!out.contains(part), "{part} in {out}");
    }
    assert!(out.contains("name: z"), "{out}");
}

#[test]
fn env_variable_and_profile_names_are_not_secrets() {
    let text = "target:\n  credentials:\n    env: { access_key: K, secret_key: LAB_SECRET }\n  rgw:\n    admin:\n      credentials: { profile: rgw-admin }\n";
    assert_eq!(own(text), text);
}

#[test]
fn rgw_admin_keys_are_secrets() {
    let text = "target:\n  rgw:\n    admin:\n      credentials: { access_key: ADMIN-ACCESS-1, secret_key: ADMIN-SECRET-1 }\n";
    let out = own(text);
    assert!(
        !out.contains("ADMIN-ACCESS-1") && !out.contains("ADMIN-SECRET-1"),
        "{out}"
    );
}

#[test]
fn a_secret_behind_an_alias_is_hidden_where_the_anchor_shows_it() {
    let text = "name: a\ndescription: &s shown-secret-value\ntarget:\n  credentials:\n    access_key: AKIDEXAMPLE\n    secret_key: *s\n";
    let out = own(text);
    assert!(!out.contains("shown-secret-value"), "{out}");
    assert!(out.contains("description: &s <redacted>"), "{out}");
    assert!(out.contains("secret_key: *s"), "{out}");
    // An anchored block of keys used as the credentials.
    let text = "keys: &k { access_key: AKIDEXAMPLE, secret_key: block-secret-x }\ntarget:\n  credentials: *k\n";
    let out = own(text);
    assert!(
        !out.contains("block-secret-x") && !out.contains("AKIDEXAMPLE"),
        "{out}"
    );
    assert!(out.contains("access_key: <redacted>"), "{out}");
}

#[test]
fn a_secret_inside_another_is_replaced_without_leftovers() {
    let text = "target:\n  credentials:\n    access_key: LONGSECRET\n    secret_key: LONGSECRET-AND-MORE\n    session_token: LONGSECRET-AND-MORE-STILL\n";
    let out = own(text);
    assert_eq!(
        out,
        "target:\n  credentials:\n    access_key: <redacted>\n    secret_key: <redacted>\n    session_token: <redacted>\n"
    );
}

#[test]
fn a_secret_in_a_comment_is_replaced() {
    let text = "# the old key was rotated-secret-99\ntarget:\n  credentials: { access_key: AKIDEXAMPLE, secret_key: rotated-secret-99 }\n";
    let out = own(text);
    assert!(out.starts_with("# the old key was <redacted>\n"), "{out}");
}

#[test]
fn broken_yaml_is_still_redacted() {
    let text = "target:\n  credentials:\n    secret_key: hunter2, oops: [\n";
    let out = own(text);
    assert!(!out.contains("hunter2"), "{out}");
    let text = "target:\n  credentials:\n    access_key: \"AKID-broken\"\n  endpoint: [\n";
    assert!(!own(text).contains("AKID-broken"));
}

#[test]
fn text_without_credentials_is_returned_as_is() {
    let text = "name: plain\nbefore:\n  - { op: put, operations: 10 }\n";
    assert_eq!(own(text), text);
}

#[test]
fn nested_aliases_cannot_make_the_scan_blow_up() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    text.push_str("target:\n  credentials: { access_key: AKIDEXAMPLE, secret_key: *a11 }\n");
    let started = std::time::Instant::now();
    let out = own(&text);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(!out.contains("AKIDEXAMPLE"), "{out}");
}
