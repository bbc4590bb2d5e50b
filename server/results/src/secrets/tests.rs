use super::*;

#[test]
fn every_occurrence_is_replaced_and_nothing_else() {
    let r = Redactor::new(["wJalrXUtnFEMI/K7MDENG"]);
    assert_eq!(
        r.redact("signed with wJalrXUtnFEMI/K7MDENG; again:wJalrXUtnFEMI/K7MDENGx"),
        "signed with <redacted>; again:<redacted>x"
    );
    assert!(matches!(
        r.redact("nothing here"),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn a_secret_inside_another_leaves_no_part_of_the_longer_one() {
    let r = Redactor::new(["AKIAEXAMPLE", "AKIAEXAMPLE-SESSION-TOKEN"]);
    assert_eq!(
        r.redact("a=AKIAEXAMPLE-SESSION-TOKEN b=AKIAEXAMPLE"),
        "a=<redacted> b=<redacted>"
    );
}

#[test]
fn short_secrets_are_replaced_where_they_stand_alone() {
    let r = Redactor::new(["SK", "any"]);
    assert_eq!(
        r.redact("secret_key: SK, Credential=SK/2026 ASK many any"),
        "secret_key: <redacted>, Credential=<redacted>/2026 ASK many <redacted>"
    );
}

#[test]
fn blank_secrets_are_ignored() {
    assert!(Redactor::new(["", "  \n"]).is_empty());
}

#[test]
fn escaped_forms_are_found_too() {
    let secret = "ab\"cd\\ef/gh+ij";
    let r = Redactor::new([secret]);
    let json =
        serde_json::to_string(&serde_json::json!({ "message": format!("x {secret} y") })).unwrap();
    let out = r.redact_json(&json);
    assert_eq!(out, r#"{"message":"x <redacted> y"}"#);
    assert_eq!(
        r.redact("token=ab%22cd%5Cef%2Fgh%2Bij&x"),
        "token=<redacted>&x"
    );
    let r = Redactor::new(["it's-a-secret"]);
    assert_eq!(r.redact("k: 'it''s-a-secret'"), "k: '<redacted>'");
}

#[test]
fn each_line_of_a_multi_line_secret_is_a_secret() {
    // As YAML reads a block scalar: without the indentation the text has.
    let r = Redactor::new(["first-line-abc\nsecond-line-def\n"]);
    assert_eq!(
        r.redact("k: |\n  first-line-abc\n  second-line-def\nnext: 1\n"),
        "k: |\n  <redacted>\n  <redacted>\nnext: 1\n"
    );
}

#[test]
fn json_keeps_its_numbers_keys_and_escapes() {
    let r = Redactor::new(["1", "ops", "n"]);
    let json = r#"{"ops": 1, "message": "ops 1 done\n n", "list": ["1", 1]}"#;
    let out = r.redact_json(json);
    assert_eq!(
        out,
        r#"{"ops": 1, "message": "<redacted> <redacted> done\n <redacted>", "list": ["<redacted>", 1]}"#
    );
    let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(parsed["ops"], 1);
}

#[test]
fn a_registration_lasts_until_dropped_and_takes_more_keys() {
    let marker = "registry-test-secret-4f1d2c";
    let later = "registry-test-later-9e3b7a";
    let registration = register(Redactor::new([marker]));
    assert!(active().finds_in(marker));
    assert!(!active().finds_in(later));
    registration.add(&Redactor::new([later]));
    assert!(active().finds_in(later));
    drop(registration);
    assert!(!active().finds_in(marker));
    assert!(!active().finds_in(later));
}

#[test]
fn debug_never_shows_a_secret() {
    let r = Redactor::new(["hunter2-hunter2"]);
    assert!(!format!("{r:?}").contains("hunter2"));
}
