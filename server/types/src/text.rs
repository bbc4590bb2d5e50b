//! Which characters a text shown to people may hold. A name, a host or a message that
//! another process sends and a page or a terminal shows must look like what it is:
//! control characters move the cursor or colour the terminal, and Unicode's format
//! characters and separators are invisible yet change what is shown (U+202E RIGHT-TO-LEFT
//! OVERRIDE turns `exe.txt` into `txt.exe`, U+200B ZERO WIDTH SPACE makes two names that
//! look the same differ). One predicate, kept here at the bottom of the workspace, so
//! every check of such text agrees.
//!
//! Invisible, and refused by [`printable`]:
//! - control characters (Unicode category Cc: U+0000–U+001F, U+007F–U+009F), newlines
//!   and tabs among them;
//! - format characters (Cf): the soft hyphen, the bidirectional marks, embeddings,
//!   overrides and isolates, the zero-width characters, the byte order mark, the
//!   interlinear annotation marks, the tag characters, and the others of [`FORMAT`];
//! - the line and paragraph separators (Zl U+2028, Zp U+2029);
//! - the noncharacters (U+FDD0–U+FDEF and the last two code points of every plane),
//!   which are never meant to reach another process.
//!
//! Private-use characters and code points not yet assigned are let through: they show
//! (as a glyph of the user's font, or a placeholder box), so they cannot hide. A text
//! that may span lines allows `'\n'` and `'\t'` on top of this; that is the caller's
//! choice (see [`is_invisible`]).

/// The format characters (Unicode category Cf, as of Unicode 16), as inclusive ranges.
/// U+2065, unassigned between the invisible operators and the bidirectional isolates,
/// is refused with them.
const FORMAT: [(char, char); 21] = [
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
    // The line and paragraph separators (Zl, Zp): not Cf, as invisible.
    ('\u{2028}', '\u{2029}'),
];

/// Whether `c` shows nothing, or changes how the text around it shows: a control
/// character, a format character, a line or paragraph separator, or a noncharacter.
/// A check of multi-line text lets `'\n'` and `'\t'` through itself before asking.
pub fn is_invisible(c: char) -> bool {
    c.is_control() || is_format(c) || is_noncharacter(c)
}

/// [`printable`] as a JSON Schema pattern (for the OpenAPI document), as far as a
/// pattern reaches: the characters past U+FFFF are left to the server's own check.
pub const PRINTABLE_PATTERN: &str = r"^[^\x00-\x1F\x7F-\x9F\xAD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFDD0-\uFDEF\uFEFF\uFFF9-\uFFFB\uFFFE\uFFFF]*$";

/// Whether every character of `text` shows (none [`is_invisible`]); the empty text is.
pub fn printable(text: &str) -> bool {
    !text.chars().any(is_invisible)
}

fn is_format(c: char) -> bool {
    FORMAT
        .iter()
        .any(|&(first, last)| (first..=last).contains(&c))
}

/// U+FDD0–U+FDEF, and U+xFFFE and U+xFFFF of every plane.
fn is_noncharacter(c: char) -> bool {
    let code = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_format_characters_separators_and_noncharacters_are_invisible() {
        for c in [
            '\0',
            '\n',
            '\t',
            '\r',
            '\x1b',
            '\x7f',
            '\u{85}',
            '\u{9b}', // Cc
            '\u{AD}',
            '\u{600}',
            '\u{605}',
            '\u{61C}',
            '\u{6DD}',
            '\u{70F}',
            '\u{890}',
            '\u{8E2}',
            '\u{180E}',
            '\u{200B}',
            '\u{200D}',
            '\u{200F}',
            '\u{202A}',
            '\u{202E}',
            '\u{2060}',
            '\u{2064}',
            '\u{2066}',
            '\u{2069}',
            '\u{206F}',
            '\u{FEFF}',
            '\u{FFF9}',
            '\u{FFFB}',
            '\u{110BD}',
            '\u{110CD}',
            '\u{13430}',
            '\u{1343F}',
            '\u{1BCA0}',
            '\u{1D173}',
            '\u{1D17A}',
            '\u{E0001}',
            '\u{E0020}',
            '\u{E007F}', // Cf
            '\u{2028}',
            '\u{2029}', // Zl, Zp
            '\u{FDD0}',
            '\u{FDEF}',
            '\u{FFFE}',
            '\u{FFFF}',
            '\u{1FFFE}',
            '\u{10FFFF}',
        ] {
            assert!(is_invisible(c), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn letters_marks_symbols_spaces_and_private_use_show() {
        for c in [
            'a',
            'Z',
            '0',
            ' ',
            '.',
            '-',
            '·',
            'é',
            'ß',
            'ü',
            'Ж',
            'ש',
            'ع',
            '中',
            '…',
            '€',
            '\u{A0}',
            '\u{301}',
            '\u{2000}',
            '\u{3000}',
            '\u{E000}',
            '\u{F8FF}',
            '\u{1F600}',
            '\u{FFFD}',
            '\u{FDCF}',
            '\u{FDF0}',
            '\u{FFFC}',
            '\u{13440}',
        ] {
            assert!(!is_invisible(c), "U+{:04X}", u32::from(c));
        }
        // The characters either side of a range of format characters show.
        for c in [
            '\u{5FF}',
            '\u{606}',
            '\u{200A}',
            '\u{2010}',
            '\u{2070}',
            '\u{E0080}',
        ] {
            assert!(!is_invisible(c), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn a_text_is_printable_when_every_character_shows() {
        assert!(printable(""));
        assert!(printable("client-a.example"));
        assert!(printable("höst-ü · round 2"));
        for hidden in [
            "exe\u{202E}txt.",
            "a\u{200B}b",
            "line\u{2028}break",
            "\u{FEFF}bom",
            "two\nlines",
            "tab\there",
            "tag\u{E0041}",
        ] {
            assert!(!printable(hidden), "{hidden:?}");
        }
    }
}
