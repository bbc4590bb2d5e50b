//! Metadata value templates: literal text with `{i}`, `{i%N}`, `{i/N}` and `{seed}`
//! computed per key; `{{` and `}}` stand for literal braces.

use crate::plan::{MetaPart, MetaTemplate};

/// Why a text is not a metadata template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error(
        "template {template:?}: `{{` without a closing `}}` (write `{{{{` for a literal brace)"
    )]
    Unclosed { template: String },
    #[error(
        "template {template:?}: `}}` without an opening `{{` (write `}}}}` for a literal brace)"
    )]
    Unopened { template: String },
    #[error(
        "template {template:?}: unknown expression {{{expr}}}; use {{i}}, {{i%N}}, {{i/N}} or {{seed}}"
    )]
    UnknownExpression { template: String, expr: String },
    #[error("template {template:?}: {{i{op}0}} divides by zero")]
    DividesByZero { template: String, op: char },
}

/// A metadata value template, parsed once.
pub fn parse_template(source: &str) -> Result<MetaTemplate, TemplateError> {
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
                            return Err(TemplateError::Unclosed {
                                template: source.to_string(),
                            });
                        }
                    }
                }
                if !literal.is_empty() {
                    parts.push(MetaPart::Literal(std::mem::take(&mut literal)));
                }
                parts.push(parse_expr(expr.trim(), source)?);
            }
            '}' => {
                return Err(TemplateError::Unopened {
                    template: source.to_string(),
                });
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

fn parse_expr(expr: &str, source: &str) -> Result<MetaPart, TemplateError> {
    let bad = || TemplateError::UnknownExpression {
        template: source.to_string(),
        expr: expr.to_string(),
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
        return Err(TemplateError::DividesByZero {
            template: source.to_string(),
            op,
        });
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
                .to_string()
                .contains("divides by zero")
        );
        assert!(
            parse_template("a{j}")
                .unwrap_err()
                .to_string()
                .contains("unknown expression {j}")
        );
        assert!(
            parse_template("a{i")
                .unwrap_err()
                .to_string()
                .contains("without a closing")
        );
        assert!(
            parse_template("a}")
                .unwrap_err()
                .to_string()
                .contains("without an opening")
        );
    }
}
