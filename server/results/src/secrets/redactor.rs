//! The secret values one run knows, and their replacement in text and in JSON.

use std::borrow::Cow;
use std::sync::Arc;

use super::json_strings;
use super::needles::{WHOLE_WORD_BELOW, forms_of, stands_alone};

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// A set of secret values, each replaced by [`REDACTED`] wherever it appears. Cheap to
/// clone; its `Debug` shows how many values it holds, never one of them.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Every form of every secret, longest first, each once.
    needles: Arc<[Box<str>]>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("forms", &self.needles.len())
            .finish()
    }
}

impl Redactor {
    /// A redactor of `secrets` (blank ones are ignored).
    pub fn new<I, S>(secrets: I) -> Redactor
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Redactor::of_forms(
            secrets
                .into_iter()
                .flat_map(|s| forms_of(s.as_ref()))
                .map(String::into_boxed_str),
        )
    }

    /// A redactor of resolved keys: the access key, the secret key and the session token.
    pub fn of_keys(keys: &keystorm_types::Credentials) -> Redactor {
        Redactor::new(
            [&keys.access_key_id, &keys.secret_access_key]
                .into_iter()
                .chain(&keys.session_token),
        )
    }

    fn of_forms(forms: impl Iterator<Item = Box<str>>) -> Redactor {
        let mut needles: Vec<Box<str>> = forms.collect();
        needles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        needles.dedup();
        Redactor {
            needles: needles.into(),
        }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// The secrets of both.
    pub fn with(&self, other: &Redactor) -> Redactor {
        if other.is_empty() {
            return self.clone();
        }
        if self.is_empty() {
            return other.clone();
        }
        Redactor::of_forms(self.needles.iter().chain(other.needles.iter()).cloned())
    }

    /// `text` with every secret replaced.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.replace(text, |_, _| true)
    }

    /// `json` (a JSON document or line) with every secret inside its string values
    /// replaced: numbers, keys and escapes are left alone, so it stays valid JSON.
    pub fn redact_json<'a>(&self, json: &'a str) -> Cow<'a, str> {
        if self.is_empty() {
            return Cow::Borrowed(json);
        }
        let strings = json_strings::value_strings(json);
        self.replace(json, |start, end| {
            json_strings::inside(json, &strings, start, end)
        })
    }

    /// Redacts `text` in place.
    pub fn redact_in_place(&self, text: &mut String) {
        if let Cow::Owned(redacted) = self.redact(text) {
            *text = redacted;
        }
    }

    /// Whether `text` holds a secret.
    pub fn finds_in(&self, text: &str) -> bool {
        matches!(self.redact(text), Cow::Owned(_))
    }

    /// Replaces the matches `allowed` accepts, a longer secret before a shorter one it
    /// holds (so no part of the longer one is left beside the marker).
    fn replace<'a>(&self, text: &'a str, allowed: impl Fn(usize, usize) -> bool) -> Cow<'a, str> {
        let mut taken: Vec<(usize, usize)> = Vec::new();
        for needle in self.needles.iter() {
            let short = needle.chars().count() < WHOLE_WORD_BELOW;
            for (start, _) in text.match_indices(&**needle) {
                let end = start + needle.len();
                if (short && !stands_alone(text, start, end))
                    || taken.iter().any(|&(s, e)| start < e && s < end)
                    || !allowed(start, end)
                {
                    continue;
                }
                taken.push((start, end));
            }
        }
        if taken.is_empty() {
            return Cow::Borrowed(text);
        }
        taken.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end) in taken {
            out.push_str(&text[at..start]);
            out.push_str(REDACTED);
            at = end;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }
}
