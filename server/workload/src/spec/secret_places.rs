//! A secret stands in a workload under `credentials` and nowhere else. A name, bucket,
//! prefix, description or any other value holding a secret's value would be written
//! into every result file, API answer, chart and log line that shows it — so such a
//! workload is refused, at the value, instead of being redacted in some of those places
//! and not in others. The secrets are those written in the text and those the process
//! knows besides: the keys of its environment, a run's resolved keys, the server's
//! tokens ([`keystorm_results::secrets::active`]).

use keystorm_results::secrets::Redactor;

use super::secret_scan::{Shown, scan};

/// A value outside `credentials` that holds a secret: where it is, and what to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct OutOfPlace {
    pub line: usize,
    pub column: usize,
    /// Names where the value is, never the value itself.
    pub message: String,
}

/// The first value of `text` outside `credentials` that holds a secret written in it or
/// known to `known`.
pub(super) fn secret_out_of_place(text: &str, known: &Redactor) -> Option<OutOfPlace> {
    let scanned = scan(text);
    let secrets = Redactor::new(&scanned.secrets).with(known);
    if secrets.is_empty() {
        return None;
    }
    scanned
        .shown
        .iter()
        .find(|s| secrets.finds_in(&s.value))
        .map(refusal)
}

fn refusal(shown: &Shown) -> OutOfPlace {
    let place = if shown.path.is_empty() {
        "a value".to_string()
    } else {
        format!("`{}`", shown.path)
    };
    OutOfPlace {
        line: shown.line.max(1),
        column: shown.column.max(1),
        message: format!(
            "{place} holds the value of a secret (a key of `credentials`, of the environment \
             or of a profile, or the server's token): a name, bucket, prefix or description is \
             shown in results, charts and logs, so a secret stands only under `credentials`; \
             choose another value"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &str = "target:\n  credentials: { access_key: AKIAPLANTED0001, secret_key: \
                        planted-secret-0002 }\n";

    fn refused(text: &str, known: &[&str]) -> Option<(usize, usize, String)> {
        secret_out_of_place(text, &Redactor::new(known)).map(|o| (o.line, o.column, o.message))
    }

    #[test]
    fn a_secret_under_credentials_only_passes() {
        let text = format!("name: fine\n{KEYS}buckets: {{ names: [b] }}\n");
        assert_eq!(refused(&text, &[]), None);
        // The environment's variable names and a profile's name are not secrets.
        let env = "name: e\ntarget:\n  credentials: { env: { access_key: MY_KEY, secret_key: \
                   MY_SECRET } }\n";
        assert_eq!(refused(env, &["MY_KEY_VALUE"]), None);
    }

    #[test]
    fn an_inline_secret_as_a_name_is_refused_at_the_name_without_showing_it() {
        let text = format!(
            "name: w\n{KEYS}buckets: {{ names: [b] }}\nbefore:\n  - {{ name: \
             AKIAPLANTED0001, op: put, operations: 1 }}\n"
        );
        let (line, column, message) = refused(&text, &[]).unwrap();
        assert_eq!((line, column), (6, 13), "{message}");
        assert!(message.contains("`before[0].name`"), "{message}");
        assert!(!message.contains("AKIAPLANTED0001"), "{message}");
    }

    #[test]
    fn a_secret_of_the_process_in_a_bucket_a_prefix_or_the_description_is_refused() {
        for (text, path) in [
            (
                "name: w\nbuckets: { names: [ok, env-key-0003-b] }\n",
                "buckets.names[1]",
            ),
            (
                "name: w\nkeyspace: { prefix: \"env-key-0003/\" }\n",
                "keyspace.prefix",
            ),
            (
                "name: w\ndescription: signs as env-key-0003\n",
                "description",
            ),
            ("env-key-0003: w\n", ""),
        ] {
            let (_, _, message) = refused(text, &["env-key-0003"]).unwrap();
            let place = if path.is_empty() {
                "a value".to_string()
            } else {
                format!("`{path}`")
            };
            assert!(message.starts_with(&place), "{text}: {message}");
        }
    }

    #[test]
    fn an_alias_of_a_secret_outside_credentials_is_refused_at_the_alias() {
        let text = "name: w\ntarget:\n  credentials: { access_key: &k AKIAPLANTED0001, \
                    secret_key: s3cret-planted }\nbuckets: { names: [b] }\nlabels_like: *k\n";
        let (line, column, message) = refused(text, &[]).unwrap();
        assert_eq!((line, column), (5, 14), "{message}");
        // The anchor on a description, used as a key: the description is refused.
        let text = "name: w\ndescription: &s anchored-secret-0005\ntarget:\n  credentials: { \
                    access_key: AKIAPLANTED0001, secret_key: *s }\n";
        let (line, _, message) = refused(text, &[]).unwrap();
        assert_eq!(line, 2, "{message}");
        assert!(message.starts_with("`description`"), "{message}");
    }
}
