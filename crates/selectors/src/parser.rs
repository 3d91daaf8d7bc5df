//! A small recursive-descent parser for the supported
//! [Selectors Level 4](https://drafts.csswg.org/selectors-4/#grammar) grammar,
//! with CSS escapes, strings and comments as in
//! [CSS Syntax](https://drafts.csswg.org/css-syntax-3/#tokenization).

use crate::ast::{
    AttributeOperator, AttributeSelector, CaseFlag, Combinator, ComplexSelector, CompoundSelector, NamespacePrefix,
    Nth, PseudoClass, SelectorList, SimpleSelector, TypeSelector,
};
use crate::{ErrorKind, SelectorError};

/// How deep selector lists may nest (`:is(:not(a))` is 2 deep): enough for
/// any real rule set, and small enough that parsing, compiling, matching,
/// displaying and dropping a selector stay far from the end of any thread's
/// stack. Deeper input is [`ErrorKind::TooDeep`].
///
/// # Example
/// ```
/// use htrewrite_selectors::{ErrorKind, MAX_NESTING, SelectorList};
/// let ok = format!("{}a{}", ":is(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
/// assert!(SelectorList::parse(&ok).is_ok());
/// let deep = format!("{}a{}", ":not(".repeat(MAX_NESTING + 1), ")".repeat(MAX_NESTING + 1));
/// assert_eq!(SelectorList::parse(&deep).unwrap_err().kind(), &ErrorKind::TooDeep);
/// ```
pub const MAX_NESTING: usize = 32;

pub(crate) fn parse_selector_list(input: &str) -> Result<SelectorList, SelectorError> {
    let mut p = Parser { s: input, pos: 0, depth: 0 };
    let list = p.selector_list()?;
    p.skip_ws();
    match p.peek() {
        None => Ok(list),
        Some(c) => Err(p.err(ErrorKind::UnexpectedChar(c))),
    }
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    /// Selector lists open around the current position ([`MAX_NESTING`]).
    depth: usize,
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c as u32 >= 0x80
}

fn is_name(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-'
}

/// Pseudo-classes that depend on what follows the start tag, and why.
fn lookahead_reason(name: &str) -> Option<&'static str> {
    Some(match name {
        "last-child" | "only-child" | "nth-last-child" => "it depends on the element's following siblings",
        "last-of-type" | "only-of-type" | "nth-last-of-type" => {
            "it depends on the element's following siblings of its type"
        }
        "empty" => "it depends on the element's content",
        "has" => "it depends on the element's descendants or following siblings",
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    fn err(&self, kind: ErrorKind) -> SelectorError {
        SelectorError::new(kind, self.pos)
    }

    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), SelectorError> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(x) => Err(self.err(ErrorKind::UnexpectedChar(x))),
            None => Err(self.err(ErrorKind::UnexpectedEnd)),
        }
    }

    /// Skips whitespace and comments; returns whether anything was skipped.
    fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        loop {
            if self.peek().is_some_and(is_ws) {
                self.pos += 1;
            } else if self.rest().starts_with("/*") {
                match self.rest()[2..].find("*/") {
                    Some(i) => self.pos += i + 4,
                    None => self.pos = self.s.len(),
                }
            } else {
                return self.pos != start;
            }
        }
    }

    fn selector_list(&mut self) -> Result<SelectorList, SelectorError> {
        // The top-level list is depth 0; each `:is(`, `:not(`, `:where(`, `of` adds one.
        if self.depth > MAX_NESTING {
            return Err(self.err(ErrorKind::TooDeep));
        }
        self.depth += 1;
        let mut selectors = Vec::new();
        let list = loop {
            self.skip_ws();
            selectors.push(self.complex()?);
            self.skip_ws();
            if !self.eat(',') {
                break SelectorList { selectors };
            }
        };
        self.depth -= 1;
        Ok(list)
    }

    fn complex(&mut self) -> Result<ComplexSelector, SelectorError> {
        let position = self.pos;
        let mut compounds = vec![self.compound()?];
        let mut combinators = Vec::new();
        loop {
            let had_ws = self.skip_ws();
            let comb = match self.peek() {
                Some('>') => Combinator::Child,
                Some('+') => Combinator::NextSibling,
                Some('~') => Combinator::SubsequentSibling,
                Some(',' | ')') | None => return Ok(ComplexSelector { compounds, combinators, position }),
                Some(_) if had_ws => Combinator::Descendant,
                Some(c) => return Err(self.err(ErrorKind::UnexpectedChar(c))),
            };
            if comb != Combinator::Descendant {
                self.pos += 1;
                self.skip_ws();
            }
            combinators.push(comb);
            compounds.push(self.compound()?);
        }
    }

    fn starts_ident(&self) -> bool {
        let mut it = self.rest().chars();
        match it.next() {
            Some('-') => matches!(it.next(), Some(c) if is_name_start(c) || c == '-' || c == '\\'),
            Some('\\') => !matches!(it.next(), Some('\n') | None),
            Some(c) => is_name_start(c),
            None => false,
        }
    }

    fn ident(&mut self) -> Result<String, SelectorError> {
        if !self.starts_ident() {
            return Err(match self.peek() {
                Some(c) => self.err(ErrorKind::UnexpectedChar(c)),
                None => self.err(ErrorKind::UnexpectedEnd),
            });
        }
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\\' {
                if self.peek2() == Some('\n') {
                    break;
                }
                self.pos += 1;
                out.push(self.escape());
            } else if is_name(c) {
                self.pos += c.len_utf8();
                out.push(c);
            } else {
                break;
            }
        }
        Ok(out)
    }

    /// [Consume an escaped code point](https://drafts.csswg.org/css-syntax-3/#consume-escaped-code-point),
    /// after the backslash.
    fn escape(&mut self) -> char {
        let hex: String = self.rest().chars().take(6).take_while(char::is_ascii_hexdigit).collect();
        if !hex.is_empty() {
            self.pos += hex.len();
            if self.peek().is_some_and(is_ws) {
                self.pos += 1;
            }
            let v = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
            return match char::from_u32(v) {
                Some('\0') | None => '\u{FFFD}',
                Some(c) => c,
            };
        }
        self.bump().unwrap_or('\u{FFFD}')
    }

    fn string(&mut self) -> Result<String, SelectorError> {
        let quote = self.bump().unwrap_or('"');
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Ok(out),
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\n') => return Err(self.err(ErrorKind::BadString)),
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        None => {}
                        Some('\n') => self.pos += 1,
                        Some(_) => out.push(self.escape()),
                    }
                }
                Some(c) => {
                    self.pos += c.len_utf8();
                    out.push(c)
                }
            }
        }
    }

    fn compound(&mut self) -> Result<CompoundSelector, SelectorError> {
        let position = self.pos;
        let type_selector = self.type_selector()?;
        let mut simple = Vec::new();
        loop {
            match self.peek() {
                Some('#') => {
                    self.pos += 1;
                    simple.push(SimpleSelector::Id(self.ident()?));
                }
                Some('.') => {
                    self.pos += 1;
                    simple.push(SimpleSelector::Class(self.ident()?));
                }
                Some('[') => simple.push(SimpleSelector::Attribute(self.attribute()?)),
                Some(':') => simple.push(SimpleSelector::PseudoClass(self.pseudo()?)),
                _ => break,
            }
        }
        if type_selector.is_none() && simple.is_empty() {
            return Err(match self.peek() {
                None => self.err(ErrorKind::UnexpectedEnd),
                Some(',' | ')') => self.err(ErrorKind::EmptySelector),
                Some(c) => self.err(ErrorKind::UnexpectedChar(c)),
            });
        }
        Ok(CompoundSelector { type_selector, simple, position })
    }

    /// `ns|name`, `ns|*`, `*|name`, `|name`, `name`, `*`.
    fn type_selector(&mut self) -> Result<Option<TypeSelector>, SelectorError> {
        let first: Option<Option<String>> = if self.peek() == Some('*') {
            self.pos += 1;
            Some(None)
        } else if self.starts_ident() {
            Some(Some(self.ident()?))
        } else {
            None
        };
        if self.peek() == Some('|') && self.peek2() != Some('=') {
            self.pos += 1;
            let namespace = match first {
                None => NamespacePrefix::None,
                Some(None) => NamespacePrefix::Any,
                Some(Some(p)) => NamespacePrefix::Named(p),
            };
            let name = if self.eat('*') { None } else { Some(self.ident()?) };
            return Ok(Some(TypeSelector { namespace, name }));
        }
        Ok(first.map(|name| TypeSelector { namespace: NamespacePrefix::Default, name }))
    }

    fn attribute(&mut self) -> Result<AttributeSelector, SelectorError> {
        self.expect('[')?;
        self.skip_ws();
        let mut namespace = NamespacePrefix::Default;
        if self.peek() == Some('|') {
            self.pos += 1;
            namespace = NamespacePrefix::None;
        } else if self.peek() == Some('*') && self.peek2() == Some('|') {
            self.pos += 2;
            namespace = NamespacePrefix::Any;
        }
        let mut name = self.ident()?;
        if namespace == NamespacePrefix::Default && self.peek() == Some('|') && self.peek2() != Some('=') {
            self.pos += 1;
            namespace = NamespacePrefix::Named(name);
            name = self.ident()?;
        }
        self.skip_ws();
        let op = match self.peek() {
            Some(']') => {
                self.pos += 1;
                return Ok(AttributeSelector { namespace, name, operation: None, case: CaseFlag::Default });
            }
            Some('=') => {
                self.pos += 1;
                AttributeOperator::Equals
            }
            Some(c @ ('~' | '|' | '^' | '$' | '*')) => {
                self.pos += 1;
                self.expect('=')?;
                match c {
                    '~' => AttributeOperator::Includes,
                    '|' => AttributeOperator::DashMatch,
                    '^' => AttributeOperator::Prefix,
                    '$' => AttributeOperator::Suffix,
                    _ => AttributeOperator::Substring,
                }
            }
            Some(c) => return Err(self.err(ErrorKind::UnexpectedChar(c))),
            None => return Err(self.err(ErrorKind::UnexpectedEnd)),
        };
        self.skip_ws();
        let value = match self.peek() {
            Some('"' | '\'') => self.string()?,
            _ => self.ident()?,
        };
        self.skip_ws();
        let case = if self.starts_ident() {
            let at = self.pos;
            match self.ident()?.to_ascii_lowercase().as_str() {
                "i" => CaseFlag::AsciiCaseInsensitive,
                "s" => CaseFlag::CaseSensitive,
                _ => {
                    self.pos = at;
                    return Err(self.err(ErrorKind::UnexpectedChar(self.peek().unwrap_or(' '))));
                }
            }
        } else {
            CaseFlag::Default
        };
        self.skip_ws();
        self.expect(']')?;
        Ok(AttributeSelector { namespace, name, operation: Some((op, value)), case })
    }

    fn pseudo(&mut self) -> Result<PseudoClass, SelectorError> {
        let at = self.pos;
        self.expect(':')?;
        if self.eat(':') {
            let name = self.ident().unwrap_or_default();
            return Err(SelectorError::new(ErrorKind::UnsupportedPseudoElement(name), at));
        }
        let name = self.ident()?;
        let lower = name.to_ascii_lowercase();
        let function = self.eat('(');
        if let Some(why) = lookahead_reason(&lower) {
            return Err(SelectorError::new(ErrorKind::NeedsLookahead { name: format!(":{lower}"), why }, at));
        }
        if !function {
            return match lower.as_str() {
                "root" => Ok(PseudoClass::Root),
                "first-child" => Ok(PseudoClass::FirstChild),
                "first-of-type" => Ok(PseudoClass::FirstOfType),
                // Legacy single-colon pseudo-elements (CSS 2).
                "before" | "after" | "first-line" | "first-letter" => {
                    Err(SelectorError::new(ErrorKind::UnsupportedPseudoElement(lower), at))
                }
                _ => Err(SelectorError::new(ErrorKind::UnsupportedPseudoClass(lower), at)),
            };
        }
        let pseudo = match lower.as_str() {
            "not" | "is" | "matches" | "any" | "where" => {
                let list = self.selector_list()?;
                match lower.as_str() {
                    "not" => PseudoClass::Not(list),
                    "where" => PseudoClass::Where(list),
                    _ => PseudoClass::Is(list),
                }
            }
            "nth-child" => {
                let nth = self.nth()?;
                self.skip_ws();
                let of = if self.rest().get(..2).is_some_and(|w| w.eq_ignore_ascii_case("of")) {
                    self.pos += 2;
                    if !self.skip_ws() {
                        return Err(self.err(ErrorKind::InvalidNth));
                    }
                    Some(self.selector_list()?)
                } else {
                    None
                };
                PseudoClass::NthChild(nth, of)
            }
            "nth-of-type" => PseudoClass::NthOfType(self.nth()?),
            _ => return Err(SelectorError::new(ErrorKind::UnsupportedPseudoClass(lower), at)),
        };
        self.skip_ws();
        self.expect(')')?;
        Ok(pseudo)
    }

    /// The [An+B microsyntax](https://drafts.csswg.org/css-syntax-3/#anb-microsyntax):
    /// `odd`, `even`, `B`, `An`, `An+B`, `An - B`, `-n+B`, `+n`.
    fn nth(&mut self) -> Result<Nth, SelectorError> {
        self.skip_ws();
        let start = self.pos;
        let bad = |p: &Parser<'_>| SelectorError::new(ErrorKind::InvalidNth, p.pos.max(start));
        let word: String = self.rest().chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        match word.to_ascii_lowercase().as_str() {
            "odd" => {
                self.pos += 3;
                return Ok(Nth { a: 2, b: 1 });
            }
            "even" => {
                self.pos += 4;
                return Ok(Nth { a: 2, b: 0 });
            }
            _ => {}
        }
        let sign = |p: &mut Parser<'_>| -> i64 {
            if p.eat('-') {
                -1
            } else {
                p.eat('+');
                1
            }
        };
        let digits = |p: &mut Parser<'_>| -> Option<i64> {
            let d: String = p.rest().chars().take_while(char::is_ascii_digit).collect();
            if d.is_empty() {
                return None;
            }
            p.pos += d.len();
            Some(d.parse::<i64>().unwrap_or(i64::from(i32::MAX)).min(i64::from(i32::MAX)))
        };
        let s = sign(self);
        let a_digits = digits(self);
        if !matches!(self.peek(), Some('n' | 'N')) {
            let Some(b) = a_digits else { return Err(bad(self)) };
            return Ok(Nth { a: 0, b: (s * b) as i32 });
        }
        self.pos += 1;
        let a = s * a_digits.unwrap_or(1);
        // `n-1` arrives as one ident in CSS; here: optional ws, sign, ws, digits.
        let save = self.pos;
        self.skip_ws();
        let b = match self.peek() {
            Some(c @ ('+' | '-')) => {
                self.pos += 1;
                self.skip_ws();
                let Some(d) = digits(self) else { return Err(bad(self)) };
                if c == '-' { -d } else { d }
            }
            _ => {
                self.pos = save;
                0
            }
        };
        Ok(Nth { a: a as i32, b: b as i32 })
    }
}
