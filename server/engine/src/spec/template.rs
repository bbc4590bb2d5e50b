//! Metadata value templates: literal text with `{i}`, `{i%N}`, `{i/N}` and `{seed}`
//! computed per key; `{{` and `}}` stand for literal braces.

use crate::plan::{MetaPart, MetaTemplate};

pub fn parse_template(source: &str) -> Result<MetaTemplate, String> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                literal.push('}');
            }
            '{' => {
                let mut expr = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => expr.push(c),
                        None => {
                            return Err(format!(
                                "template {source:?}: `{{` without a closing `}}` (write `{{{{` for a literal brace)"
                            ));
                        }
                    }
                }
                if !literal.is_empty() {
                    parts.push(MetaPart::Literal(std::mem::take(&mut literal)));
                }
                parts.push(parse_expr(expr.trim(), source)?);
            }
            '}' => {
                return Err(format!(
                    "template {source:?}: `}}` without an opening `{{` (write `}}}}` for a literal brace)"
                ));
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        parts.push(MetaPart::Literal(literal));
    }
    Ok(MetaTemplate {
        source: source.to_string(),
        parts,
    })
}

fn parse_expr(expr: &str, source: &str) -> Result<MetaPart, String> {
    let bad = || {
        format!(
            "template {source:?}: unknown expression {{{expr}}}; use {{i}}, {{i%N}}, {{i/N}} or {{seed}}"
        )
    };
    let compact: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
    match compact.as_str() {
        "i" => return Ok(MetaPart::Index),
        "seed" => return Ok(MetaPart::Seed),
        _ => {}
    }
    let (op, n) = if let Some(n) = compact.strip_prefix("i%") {
        ('%', n)
    } else if let Some(n) = compact.strip_prefix("i/") {
        ('/', n)
    } else {
        return Err(bad());
    };
    let n: u64 = n.parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(format!("template {source:?}: {{i{op}0}} divides by zero"));
    }
    Ok(if op == '%' {
        MetaPart::IndexMod(n)
    } else {
        MetaPart::IndexDiv(n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_parse_into_parts() {
        let t = parse_template("team-{i%8}/{ i / 100 }-{seed}{{x}}").unwrap();
        assert_eq!(
            t.parts,
            vec![
                MetaPart::Literal("team-".into()),
                MetaPart::IndexMod(8),
                MetaPart::Literal("/".into()),
                MetaPart::IndexDiv(100),
                MetaPart::Literal("-".into()),
                MetaPart::Seed,
                MetaPart::Literal("{x}".into()),
            ]
        );
    }

    #[test]
    fn bad_templates_are_explained() {
        assert!(
            parse_template("a{i%0}")
                .unwrap_err()
                .contains("divides by zero")
        );
        assert!(
            parse_template("a{j}")
                .unwrap_err()
                .contains("unknown expression {j}")
        );
        assert!(
            parse_template("a{i")
                .unwrap_err()
                .contains("without a closing")
        );
        assert!(
            parse_template("a}")
                .unwrap_err()
                .contains("without an opening")
        );
    }
}
