//! The selector syntax tree ([Selectors Level 4](https://drafts.csswg.org/selectors-4/)),
//! with source positions, and its serialization.
//!
//! `Display` writes a canonical form (identifiers and strings escaped as
//! [CSSOM](https://drafts.csswg.org/cssom/#serialize-an-identifier) does); parsing
//! that form gives back the same tree.

use std::fmt::{self, Write};

use crate::SelectorError;

/// A selector list `a, b c, d > e`: one or more complex selectors.
///
/// # Example
/// ```
/// use htrewrite_selectors::SelectorList;
/// let list = SelectorList::parse("A.x >  b,c")?;
/// assert_eq!(list.selectors.len(), 2);
/// assert_eq!(list.to_string(), "A.x > b, c");
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorList {
    /// The complex selectors, in source order.
    pub selectors: Vec<ComplexSelector>,
}

impl SelectorList {
    /// Parses a selector list.
    ///
    /// # Errors
    /// A [`SelectorError`] with the byte offset and the reason: syntax errors,
    /// unknown or unsupported pseudo-classes, pseudo-elements, and selectors
    /// that need lookahead (`:last-child`, `:has()`, …).
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::SelectorList;
    /// assert!(SelectorList::parse("ul > li:nth-child(2n+1 of .x)").is_ok());
    /// assert_eq!(SelectorList::parse("p:empty").unwrap_err().position(), 1);
    /// ```
    pub fn parse(input: &str) -> Result<SelectorList, SelectorError> {
        crate::parser::parse_selector_list(input)
    }

    /// Calls `f` on the namespace prefix of every type selector (`svg|rect`,
    /// `*|*`, `p`: [`NamespacePrefix::Default`]), nested lists included
    /// (`:is()`, `:not()`, `:where()`, `:nth-child(… of S)`), in source
    /// order; `f` may change it. For tools that declare prefixes their own
    /// way (a command line's `--namespace s=…`) and map them to the
    /// predefined ones before compiling.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::{NamespacePrefix, SelectorList};
    /// let mut list = SelectorList::parse("s|rect, :not(s|g > p)")?;
    /// list.for_each_type_prefix_mut(&mut |p| {
    ///     if *p == NamespacePrefix::Named("s".into()) {
    ///         *p = NamespacePrefix::Named("svg".into());
    ///     }
    /// });
    /// assert_eq!(list.to_string(), "svg|rect, :not(svg|g > p)");
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn for_each_type_prefix_mut(&mut self, f: &mut dyn FnMut(&mut NamespacePrefix)) {
        for complex in &mut self.selectors {
            for compound in &mut complex.compounds {
                if let Some(t) = &mut compound.type_selector {
                    f(&mut t.namespace);
                }
                for simple in &mut compound.simple {
                    if let SimpleSelector::PseudoClass(
                        PseudoClass::Not(list)
                        | PseudoClass::Is(list)
                        | PseudoClass::Where(list)
                        | PseudoClass::NthChild(_, Some(list)),
                    ) = simple
                    {
                        list.for_each_type_prefix_mut(f);
                    }
                }
            }
        }
    }

    /// Whether `self` and `other` are the same selectors, apart from where
    /// they were written (the `position`s): `p` and `/*1*/ p` are, `p` and
    /// `P` are not (names keep their case here). Selectors that are the
    /// same match the same elements; a rewriter compiles them once.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::SelectorList;
    /// let a = SelectorList::parse("ul > li:not(.x)")?;
    /// assert!(a.same_as(&SelectorList::parse("/*1*/ ul>li:not( .x )")?));
    /// assert!(!a.same_as(&SelectorList::parse("ul li:not(.x)")?));
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn same_as(&self, other: &SelectorList) -> bool {
        self.selectors.len() == other.selectors.len()
            && self.selectors.iter().zip(&other.selectors).all(|(a, b)| {
                a.combinators == b.combinators
                    && a.compounds.len() == b.compounds.len()
                    && a.compounds.iter().zip(&b.compounds).all(|(x, y)| {
                        x.type_selector == y.type_selector
                            && x.simple.len() == y.simple.len()
                            && x.simple.iter().zip(&y.simple).all(|(s, t)| s.same_as(t))
                    })
            })
    }
}

/// A complex selector: compounds joined by combinators, left to right.
///
/// # Example
/// ```
/// use htrewrite_selectors::{Combinator, SelectorList};
/// let list = SelectorList::parse("a b > c")?;
/// let s = &list.selectors[0];
/// assert_eq!(s.compounds.len(), 3);
/// assert_eq!(s.combinators, [Combinator::Descendant, Combinator::Child]);
/// assert_eq!(s.compounds[2].position, 6);
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComplexSelector {
    /// The compound selectors (at least one).
    pub compounds: Vec<CompoundSelector>,
    /// `combinators[i]` joins `compounds[i]` and `compounds[i + 1]`.
    pub combinators: Vec<Combinator>,
    /// Byte offset of the selector in the parsed text.
    pub position: usize,
}

/// A [combinator](https://drafts.csswg.org/selectors-4/#combinators).
///
/// # Example
/// ```
/// use htrewrite_selectors::Combinator;
/// assert_eq!(Combinator::SubsequentSibling.to_string(), " ~ ");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combinator {
    /// `a b`: b is a descendant of a.
    Descendant,
    /// `a > b`: b is a child of a.
    Child,
    /// `a + b`: b immediately follows a (element siblings).
    NextSibling,
    /// `a ~ b`: b follows a, same parent.
    SubsequentSibling,
}

impl fmt::Display for Combinator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Combinator::Descendant => " ",
            Combinator::Child => " > ",
            Combinator::NextSibling => " + ",
            Combinator::SubsequentSibling => " ~ ",
        })
    }
}

/// A compound selector: an optional type selector and simple selectors, all
/// about one element.
///
/// # Example
/// ```
/// use htrewrite_selectors::{SelectorList, SimpleSelector};
/// let list = SelectorList::parse("svg|rect.a[x]")?;
/// let c = &list.selectors[0].compounds[0];
/// assert_eq!(c.type_selector.as_ref().unwrap().name.as_deref(), Some("rect"));
/// assert!(matches!(c.simple[0], SimpleSelector::Class(ref s) if s == "a"));
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompoundSelector {
    /// The type or universal selector, if written.
    pub type_selector: Option<TypeSelector>,
    /// The other simple selectors, in source order.
    pub simple: Vec<SimpleSelector>,
    /// Byte offset of the compound in the parsed text.
    pub position: usize,
}

/// A [type selector](https://drafts.csswg.org/selectors-4/#type-selectors)
/// `ns|name`, or the universal selector when `name` is `None`.
///
/// # Example
/// ```
/// use htrewrite_selectors::{NamespacePrefix, SelectorList};
/// let list = SelectorList::parse("*|*")?;
/// let t = list.selectors[0].compounds[0].type_selector.clone().unwrap();
/// assert_eq!(t.namespace, NamespacePrefix::Any);
/// assert_eq!(t.name, None);
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeSelector {
    /// The namespace part.
    pub namespace: NamespacePrefix,
    /// The local name as written, `None` for `*`.
    pub name: Option<String>,
}

/// The namespace part of a type selector.
///
/// # Example
/// ```
/// use htrewrite_selectors::NamespacePrefix;
/// assert_eq!(NamespacePrefix::Named("svg".into()).to_string(), "svg|");
/// assert_eq!(NamespacePrefix::Default.to_string(), "");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NamespacePrefix {
    /// No `|` written: the default namespace (any, unless one is declared).
    Default,
    /// `*|`: any namespace.
    Any,
    /// `|`: no namespace (no element of an HTML document has none).
    None,
    /// `prefix|`.
    Named(String),
}

impl fmt::Display for NamespacePrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NamespacePrefix::Default => Ok(()),
            NamespacePrefix::Any => f.write_str("*|"),
            NamespacePrefix::None => f.write_str("|"),
            NamespacePrefix::Named(p) => {
                write_ident(f, p)?;
                f.write_char('|')
            }
        }
    }
}

/// A simple selector other than the type selector.
///
/// # Example
/// ```
/// use htrewrite_selectors::{PseudoClass, SelectorList, SimpleSelector};
/// let list = SelectorList::parse(":not(a b)")?;
/// let SimpleSelector::PseudoClass(PseudoClass::Not(inner)) = &list.selectors[0].compounds[0].simple[0] else {
///     panic!()
/// };
/// assert_eq!(inner.to_string(), "a b");
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimpleSelector {
    /// `#id`.
    Id(String),
    /// `.class`.
    Class(String),
    /// `[…]`.
    Attribute(AttributeSelector),
    /// `:…`.
    PseudoClass(PseudoClass),
}

impl SimpleSelector {
    /// Equality apart from positions (see [`SelectorList::same_as`]).
    fn same_as(&self, other: &SimpleSelector) -> bool {
        use PseudoClass::{Is, Not, NthChild, Where};
        match (self, other) {
            (SimpleSelector::PseudoClass(a), SimpleSelector::PseudoClass(b)) => match (a, b) {
                (Not(x), Not(y)) | (Is(x), Is(y)) | (Where(x), Where(y)) => x.same_as(y),
                (NthChild(n, x), NthChild(m, y)) => {
                    n == m
                        && match (x, y) {
                            (Some(x), Some(y)) => x.same_as(y),
                            (None, None) => true,
                            _ => false,
                        }
                }
                _ => a == b,
            },
            _ => self == other,
        }
    }
}

/// An [attribute selector](https://drafts.csswg.org/selectors-4/#attribute-selectors).
///
/// # Example
/// ```
/// use htrewrite_selectors::{AttributeOperator, CaseFlag, SelectorList, SimpleSelector};
/// let list = SelectorList::parse("[lang|='en' i]")?;
/// let SimpleSelector::Attribute(a) = &list.selectors[0].compounds[0].simple[0] else { panic!() };
/// assert_eq!(a.name, "lang");
/// assert_eq!(a.operation, Some((AttributeOperator::DashMatch, "en".to_owned())));
/// assert_eq!(a.case, CaseFlag::AsciiCaseInsensitive);
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeSelector {
    /// The namespace part: [`NamespacePrefix::Default`] (no `|`) and
    /// [`NamespacePrefix::None`] (`[|a]`) both mean attributes in no
    /// namespace, [`NamespacePrefix::Any`] (`[*|a]`) any namespace (`xlink:href`
    /// on SVG is `href` in the XLink namespace). Named prefixes are refused
    /// at compile time.
    pub namespace: NamespacePrefix,
    /// The attribute's local name as written.
    pub name: String,
    /// The operator and value; `None` for `[name]`.
    pub operation: Option<(AttributeOperator, String)>,
    /// The `i` / `s` flag.
    pub case: CaseFlag,
}

/// An attribute selector's operator.
///
/// # Example
/// ```
/// use htrewrite_selectors::AttributeOperator;
/// assert_eq!(AttributeOperator::Includes.as_str(), "~=");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttributeOperator {
    /// `=`: equal.
    Equals,
    /// `~=`: one of the whitespace-separated words.
    Includes,
    /// `|=`: equal, or starts with the value and `-`.
    DashMatch,
    /// `^=`: starts with (never matches an empty value).
    Prefix,
    /// `$=`: ends with (never matches an empty value).
    Suffix,
    /// `*=`: contains (never matches an empty value).
    Substring,
}

impl AttributeOperator {
    /// The operator as written.
    ///
    /// # Example
    /// ```
    /// assert_eq!(htrewrite_selectors::AttributeOperator::Prefix.as_str(), "^=");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            AttributeOperator::Equals => "=",
            AttributeOperator::Includes => "~=",
            AttributeOperator::DashMatch => "|=",
            AttributeOperator::Prefix => "^=",
            AttributeOperator::Suffix => "$=",
            AttributeOperator::Substring => "*=",
        }
    }
}

/// The [case-sensitivity flag](https://drafts.csswg.org/selectors-4/#attribute-case)
/// of an attribute selector.
///
/// # Example
/// ```
/// use htrewrite_selectors::CaseFlag;
/// assert_eq!(CaseFlag::default(), CaseFlag::Default);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CaseFlag {
    /// No flag: case-sensitive, except the HTML Standard's
    /// [list of attributes](https://html.spec.whatwg.org/multipage/semantics-other.html#case-sensitivity-of-selectors)
    /// on HTML elements, which compare ASCII case-insensitively.
    #[default]
    Default,
    /// `i`: ASCII case-insensitive.
    AsciiCaseInsensitive,
    /// `s`: case-sensitive, even for the Standard's list.
    CaseSensitive,
}

/// A supported pseudo-class: those decidable when the start tag is seen.
///
/// # Example
/// ```
/// use htrewrite_selectors::{Nth, PseudoClass};
/// assert_eq!(PseudoClass::NthChild(Nth { a: 2, b: 1 }, None).to_string(), ":nth-child(2n+1)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PseudoClass {
    /// `:not(list)`.
    Not(SelectorList),
    /// `:is(list)` (also written `:matches()` or `:any()` by older pages;
    /// serialized as `:is`).
    Is(SelectorList),
    /// `:where(list)`.
    Where(SelectorList),
    /// `:root`.
    Root,
    /// `:first-child`.
    FirstChild,
    /// `:first-of-type`.
    FirstOfType,
    /// `:nth-child(An+B [of S])`.
    NthChild(Nth, Option<SelectorList>),
    /// `:nth-of-type(An+B)`.
    NthOfType(Nth),
}

/// An [`An+B`](https://drafts.csswg.org/css-syntax-3/#anb-microsyntax) argument:
/// matches the 1-based indices `A·n + B` for some integer `n ≥ 0`.
///
/// # Example
/// ```
/// use htrewrite_selectors::Nth;
/// let odd = Nth { a: 2, b: 1 };
/// assert!(odd.matches(1) && odd.matches(3) && !odd.matches(2));
/// assert!(Nth { a: -1, b: 3 }.matches(2) && !Nth { a: -1, b: 3 }.matches(4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Nth {
    /// A.
    pub a: i32,
    /// B.
    pub b: i32,
}

impl Nth {
    /// Whether the 1-based `index` is `A·n + B` for some `n ≥ 0`.
    pub fn matches(self, index: u32) -> bool {
        let (a, b, i) = (self.a as i64, self.b as i64, index as i64);
        if a == 0 {
            return i == b;
        }
        let d = i - b;
        d % a == 0 && d / a >= 0
    }
}

impl fmt::Display for Nth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.a, self.b) {
            (0, b) => write!(f, "{b}"),
            (a, b) => {
                match a {
                    1 => f.write_str("n")?,
                    -1 => f.write_str("-n")?,
                    a => write!(f, "{a}n")?,
                }
                match b {
                    0 => Ok(()),
                    b if b > 0 => write!(f, "+{b}"),
                    b => write!(f, "{b}"),
                }
            }
        }
    }
}

impl fmt::Display for PseudoClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PseudoClass::Not(l) => write!(f, ":not({l})"),
            PseudoClass::Is(l) => write!(f, ":is({l})"),
            PseudoClass::Where(l) => write!(f, ":where({l})"),
            PseudoClass::Root => f.write_str(":root"),
            PseudoClass::FirstChild => f.write_str(":first-child"),
            PseudoClass::FirstOfType => f.write_str(":first-of-type"),
            PseudoClass::NthChild(n, None) => write!(f, ":nth-child({n})"),
            PseudoClass::NthChild(n, Some(l)) => write!(f, ":nth-child({n} of {l})"),
            PseudoClass::NthOfType(n) => write!(f, ":nth-of-type({n})"),
        }
    }
}

impl fmt::Display for SimpleSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimpleSelector::Id(s) => {
                f.write_char('#')?;
                write_ident(f, s)
            }
            SimpleSelector::Class(s) => {
                f.write_char('.')?;
                write_ident(f, s)
            }
            SimpleSelector::Attribute(a) => {
                f.write_char('[')?;
                a.namespace.fmt(f)?;
                write_ident(f, &a.name)?;
                if let Some((op, v)) = &a.operation {
                    f.write_str(op.as_str())?;
                    write_string(f, v)?;
                }
                match a.case {
                    CaseFlag::Default => {}
                    CaseFlag::AsciiCaseInsensitive => f.write_str(" i")?,
                    CaseFlag::CaseSensitive => f.write_str(" s")?,
                }
                f.write_char(']')
            }
            SimpleSelector::PseudoClass(p) => p.fmt(f),
        }
    }
}

impl fmt::Display for CompoundSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.type_selector {
            Some(t) => {
                t.namespace.fmt(f)?;
                match &t.name {
                    Some(n) => write_ident(f, n)?,
                    None => f.write_char('*')?,
                }
            }
            None if self.simple.is_empty() => f.write_char('*')?,
            None => {}
        }
        self.simple.iter().try_for_each(|s| s.fmt(f))
    }
}

impl fmt::Display for ComplexSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.compounds.iter().enumerate() {
            if i > 0 {
                self.combinators[i - 1].fmt(f)?;
            }
            c.fmt(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for SelectorList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.selectors.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            s.fmt(f)?;
        }
        Ok(())
    }
}

/// [Serialize an identifier](https://drafts.csswg.org/cssom/#serialize-an-identifier).
fn write_ident(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    let first = s.chars().next();
    if s == "-" {
        return f.write_str("\\-");
    }
    for (i, c) in s.chars().enumerate() {
        let digit_start = c.is_ascii_digit() && (i == 0 || (i == 1 && first == Some('-')));
        match c {
            '\0' => f.write_char('\u{FFFD}')?,
            '\u{1}'..='\u{1f}' | '\u{7f}' => write!(f, "\\{:x} ", c as u32)?,
            _ if digit_start => write!(f, "\\{:x} ", c as u32)?,
            c if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c as u32 >= 0x80 => f.write_char(c)?,
            c => {
                f.write_char('\\')?;
                f.write_char(c)?
            }
        }
    }
    Ok(())
}

/// [Serialize a string](https://drafts.csswg.org/cssom/#serialize-a-string).
fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '\0' => f.write_char('\u{FFFD}')?,
            '\u{1}'..='\u{1f}' | '\u{7f}' => write!(f, "\\{:x} ", c as u32)?,
            '"' | '\\' => {
                f.write_char('\\')?;
                f.write_char(c)?
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}
