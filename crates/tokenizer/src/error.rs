//! Parse error codes of the HTML tokenizer.
//!
//! Spec: <https://html.spec.whatwg.org/multipage/parsing.html#parse-errors>.

use crate::Span;

/// A tokenizer parse error code, named as in the HTML Standard's table of
/// [parse errors](https://html.spec.whatwg.org/multipage/parsing.html#parse-errors).
///
/// Parse errors are diagnostics: the tokenizer reports them and goes on; none
/// is fatal. [`ParseErrorCode::as_str`] gives the spec's kebab-case code, the
/// spelling html5lib's test data uses.
///
/// The last four codes (`*-processing-instruction*`) belong to the processing
/// instruction states the Standard added on 2026-06-25 (named as in its table
/// of parse errors; html5lib's tokenizer data does not cover them yet).
///
/// # Example
/// ```
/// use htrewrite_tokenizer::ParseErrorCode;
/// assert_eq!(ParseErrorCode::EofInTag.as_str(), "eof-in-tag");
/// assert_eq!(ParseErrorCode::from_str("eof-in-tag"), Some(ParseErrorCode::EofInTag));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ParseErrorCode {
    /// `abrupt-closing-of-empty-comment`
    AbruptClosingOfEmptyComment,
    /// `abrupt-doctype-public-identifier`
    AbruptDoctypePublicIdentifier,
    /// `abrupt-doctype-system-identifier`
    AbruptDoctypeSystemIdentifier,
    /// `absence-of-digits-in-numeric-character-reference`
    AbsenceOfDigitsInNumericCharacterReference,
    /// `cdata-in-html-content`
    CdataInHtmlContent,
    /// `character-reference-outside-unicode-range`
    CharacterReferenceOutsideUnicodeRange,
    /// `control-character-in-input-stream`
    ControlCharacterInInputStream,
    /// `control-character-reference`
    ControlCharacterReference,
    /// `duplicate-attribute`
    DuplicateAttribute,
    /// `end-tag-with-attributes`
    EndTagWithAttributes,
    /// `end-tag-with-trailing-solidus`
    EndTagWithTrailingSolidus,
    /// `eof-before-tag-name`
    EofBeforeTagName,
    /// `eof-in-cdata`
    EofInCdata,
    /// `eof-in-comment`
    EofInComment,
    /// `eof-in-doctype`
    EofInDoctype,
    /// `eof-in-script-html-comment-like-text`
    EofInScriptHtmlCommentLikeText,
    /// `eof-in-tag`
    EofInTag,
    /// `incorrectly-closed-comment`
    IncorrectlyClosedComment,
    /// `incorrectly-opened-comment`
    IncorrectlyOpenedComment,
    /// `invalid-character-sequence-after-doctype-name`
    InvalidCharacterSequenceAfterDoctypeName,
    /// `invalid-first-character-of-tag-name`
    InvalidFirstCharacterOfTagName,
    /// `missing-attribute-value`
    MissingAttributeValue,
    /// `missing-doctype-name`
    MissingDoctypeName,
    /// `missing-doctype-public-identifier`
    MissingDoctypePublicIdentifier,
    /// `missing-doctype-system-identifier`
    MissingDoctypeSystemIdentifier,
    /// `missing-end-tag-name`
    MissingEndTagName,
    /// `missing-quote-before-doctype-public-identifier`
    MissingQuoteBeforeDoctypePublicIdentifier,
    /// `missing-quote-before-doctype-system-identifier`
    MissingQuoteBeforeDoctypeSystemIdentifier,
    /// `missing-semicolon-after-character-reference`
    MissingSemicolonAfterCharacterReference,
    /// `missing-whitespace-after-doctype-public-keyword`
    MissingWhitespaceAfterDoctypePublicKeyword,
    /// `missing-whitespace-after-doctype-system-keyword`
    MissingWhitespaceAfterDoctypeSystemKeyword,
    /// `missing-whitespace-before-doctype-name`
    MissingWhitespaceBeforeDoctypeName,
    /// `missing-whitespace-between-attributes`
    MissingWhitespaceBetweenAttributes,
    /// `missing-whitespace-between-doctype-public-and-system-identifiers`
    MissingWhitespaceBetweenDoctypePublicAndSystemIdentifiers,
    /// `nested-comment`
    NestedComment,
    /// `noncharacter-character-reference`
    NoncharacterCharacterReference,
    /// `noncharacter-in-input-stream`
    NoncharacterInInputStream,
    /// `null-character-reference`
    NullCharacterReference,
    /// `surrogate-character-reference`
    SurrogateCharacterReference,
    /// `surrogate-in-input-stream`
    SurrogateInInputStream,
    /// `unexpected-character-after-doctype-system-identifier`
    UnexpectedCharacterAfterDoctypeSystemIdentifier,
    /// `unexpected-character-in-attribute-name`
    UnexpectedCharacterInAttributeName,
    /// `unexpected-character-in-unquoted-attribute-value`
    UnexpectedCharacterInUnquotedAttributeValue,
    /// `unexpected-equals-sign-before-attribute-name`
    UnexpectedEqualsSignBeforeAttributeName,
    /// `unexpected-null-character`
    UnexpectedNullCharacter,
    /// `unexpected-solidus-in-tag`
    UnexpectedSolidusInTag,
    /// `unknown-named-character-reference`
    UnknownNamedCharacterReference,
    /// `invalid-first-character-of-processing-instruction-target`
    InvalidFirstCharacterOfProcessingInstructionTarget,
    /// `invalid-processing-instruction-target`
    InvalidProcessingInstructionTarget,
    /// `disallowed-processing-instruction-target`
    DisallowedProcessingInstructionTarget,
    /// `eof-in-processing-instruction`
    EofInProcessingInstruction,
}

impl ParseErrorCode {
    /// Every code, in declaration order.
    pub const ALL: &'static [ParseErrorCode] = &[
        ParseErrorCode::AbruptClosingOfEmptyComment,
        ParseErrorCode::AbruptDoctypePublicIdentifier,
        ParseErrorCode::AbruptDoctypeSystemIdentifier,
        ParseErrorCode::AbsenceOfDigitsInNumericCharacterReference,
        ParseErrorCode::CdataInHtmlContent,
        ParseErrorCode::CharacterReferenceOutsideUnicodeRange,
        ParseErrorCode::ControlCharacterInInputStream,
        ParseErrorCode::ControlCharacterReference,
        ParseErrorCode::DuplicateAttribute,
        ParseErrorCode::EndTagWithAttributes,
        ParseErrorCode::EndTagWithTrailingSolidus,
        ParseErrorCode::EofBeforeTagName,
        ParseErrorCode::EofInCdata,
        ParseErrorCode::EofInComment,
        ParseErrorCode::EofInDoctype,
        ParseErrorCode::EofInScriptHtmlCommentLikeText,
        ParseErrorCode::EofInTag,
        ParseErrorCode::IncorrectlyClosedComment,
        ParseErrorCode::IncorrectlyOpenedComment,
        ParseErrorCode::InvalidCharacterSequenceAfterDoctypeName,
        ParseErrorCode::InvalidFirstCharacterOfTagName,
        ParseErrorCode::MissingAttributeValue,
        ParseErrorCode::MissingDoctypeName,
        ParseErrorCode::MissingDoctypePublicIdentifier,
        ParseErrorCode::MissingDoctypeSystemIdentifier,
        ParseErrorCode::MissingEndTagName,
        ParseErrorCode::MissingQuoteBeforeDoctypePublicIdentifier,
        ParseErrorCode::MissingQuoteBeforeDoctypeSystemIdentifier,
        ParseErrorCode::MissingSemicolonAfterCharacterReference,
        ParseErrorCode::MissingWhitespaceAfterDoctypePublicKeyword,
        ParseErrorCode::MissingWhitespaceAfterDoctypeSystemKeyword,
        ParseErrorCode::MissingWhitespaceBeforeDoctypeName,
        ParseErrorCode::MissingWhitespaceBetweenAttributes,
        ParseErrorCode::MissingWhitespaceBetweenDoctypePublicAndSystemIdentifiers,
        ParseErrorCode::NestedComment,
        ParseErrorCode::NoncharacterCharacterReference,
        ParseErrorCode::NoncharacterInInputStream,
        ParseErrorCode::NullCharacterReference,
        ParseErrorCode::SurrogateCharacterReference,
        ParseErrorCode::SurrogateInInputStream,
        ParseErrorCode::UnexpectedCharacterAfterDoctypeSystemIdentifier,
        ParseErrorCode::UnexpectedCharacterInAttributeName,
        ParseErrorCode::UnexpectedCharacterInUnquotedAttributeValue,
        ParseErrorCode::UnexpectedEqualsSignBeforeAttributeName,
        ParseErrorCode::UnexpectedNullCharacter,
        ParseErrorCode::UnexpectedSolidusInTag,
        ParseErrorCode::UnknownNamedCharacterReference,
        ParseErrorCode::InvalidFirstCharacterOfProcessingInstructionTarget,
        ParseErrorCode::InvalidProcessingInstructionTarget,
        ParseErrorCode::DisallowedProcessingInstructionTarget,
        ParseErrorCode::EofInProcessingInstruction,
    ];

    /// The spec's kebab-case spelling of this code, e.g. `"eof-in-tag"`.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::ParseErrorCode;
    /// assert_eq!(ParseErrorCode::NestedComment.as_str(), "nested-comment");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ParseErrorCode::AbruptClosingOfEmptyComment => "abrupt-closing-of-empty-comment",
            ParseErrorCode::AbruptDoctypePublicIdentifier => "abrupt-doctype-public-identifier",
            ParseErrorCode::AbruptDoctypeSystemIdentifier => "abrupt-doctype-system-identifier",
            ParseErrorCode::AbsenceOfDigitsInNumericCharacterReference => {
                "absence-of-digits-in-numeric-character-reference"
            }
            ParseErrorCode::CdataInHtmlContent => "cdata-in-html-content",
            ParseErrorCode::CharacterReferenceOutsideUnicodeRange => "character-reference-outside-unicode-range",
            ParseErrorCode::ControlCharacterInInputStream => "control-character-in-input-stream",
            ParseErrorCode::ControlCharacterReference => "control-character-reference",
            ParseErrorCode::DuplicateAttribute => "duplicate-attribute",
            ParseErrorCode::EndTagWithAttributes => "end-tag-with-attributes",
            ParseErrorCode::EndTagWithTrailingSolidus => "end-tag-with-trailing-solidus",
            ParseErrorCode::EofBeforeTagName => "eof-before-tag-name",
            ParseErrorCode::EofInCdata => "eof-in-cdata",
            ParseErrorCode::EofInComment => "eof-in-comment",
            ParseErrorCode::EofInDoctype => "eof-in-doctype",
            ParseErrorCode::EofInScriptHtmlCommentLikeText => "eof-in-script-html-comment-like-text",
            ParseErrorCode::EofInTag => "eof-in-tag",
            ParseErrorCode::IncorrectlyClosedComment => "incorrectly-closed-comment",
            ParseErrorCode::IncorrectlyOpenedComment => "incorrectly-opened-comment",
            ParseErrorCode::InvalidCharacterSequenceAfterDoctypeName => "invalid-character-sequence-after-doctype-name",
            ParseErrorCode::InvalidFirstCharacterOfTagName => "invalid-first-character-of-tag-name",
            ParseErrorCode::MissingAttributeValue => "missing-attribute-value",
            ParseErrorCode::MissingDoctypeName => "missing-doctype-name",
            ParseErrorCode::MissingDoctypePublicIdentifier => "missing-doctype-public-identifier",
            ParseErrorCode::MissingDoctypeSystemIdentifier => "missing-doctype-system-identifier",
            ParseErrorCode::MissingEndTagName => "missing-end-tag-name",
            ParseErrorCode::MissingQuoteBeforeDoctypePublicIdentifier => {
                "missing-quote-before-doctype-public-identifier"
            }
            ParseErrorCode::MissingQuoteBeforeDoctypeSystemIdentifier => {
                "missing-quote-before-doctype-system-identifier"
            }
            ParseErrorCode::MissingSemicolonAfterCharacterReference => "missing-semicolon-after-character-reference",
            ParseErrorCode::MissingWhitespaceAfterDoctypePublicKeyword => {
                "missing-whitespace-after-doctype-public-keyword"
            }
            ParseErrorCode::MissingWhitespaceAfterDoctypeSystemKeyword => {
                "missing-whitespace-after-doctype-system-keyword"
            }
            ParseErrorCode::MissingWhitespaceBeforeDoctypeName => "missing-whitespace-before-doctype-name",
            ParseErrorCode::MissingWhitespaceBetweenAttributes => "missing-whitespace-between-attributes",
            ParseErrorCode::MissingWhitespaceBetweenDoctypePublicAndSystemIdentifiers => {
                "missing-whitespace-between-doctype-public-and-system-identifiers"
            }
            ParseErrorCode::NestedComment => "nested-comment",
            ParseErrorCode::NoncharacterCharacterReference => "noncharacter-character-reference",
            ParseErrorCode::NoncharacterInInputStream => "noncharacter-in-input-stream",
            ParseErrorCode::NullCharacterReference => "null-character-reference",
            ParseErrorCode::SurrogateCharacterReference => "surrogate-character-reference",
            ParseErrorCode::SurrogateInInputStream => "surrogate-in-input-stream",
            ParseErrorCode::UnexpectedCharacterAfterDoctypeSystemIdentifier => {
                "unexpected-character-after-doctype-system-identifier"
            }
            ParseErrorCode::UnexpectedCharacterInAttributeName => "unexpected-character-in-attribute-name",
            ParseErrorCode::UnexpectedCharacterInUnquotedAttributeValue => {
                "unexpected-character-in-unquoted-attribute-value"
            }
            ParseErrorCode::UnexpectedEqualsSignBeforeAttributeName => "unexpected-equals-sign-before-attribute-name",
            ParseErrorCode::UnexpectedNullCharacter => "unexpected-null-character",
            ParseErrorCode::UnexpectedSolidusInTag => "unexpected-solidus-in-tag",
            ParseErrorCode::UnknownNamedCharacterReference => "unknown-named-character-reference",
            ParseErrorCode::InvalidFirstCharacterOfProcessingInstructionTarget => {
                "invalid-first-character-of-processing-instruction-target"
            }
            ParseErrorCode::InvalidProcessingInstructionTarget => "invalid-processing-instruction-target",
            ParseErrorCode::DisallowedProcessingInstructionTarget => "disallowed-processing-instruction-target",
            ParseErrorCode::EofInProcessingInstruction => "eof-in-processing-instruction",
        }
    }

    /// The code whose spec spelling is `s`, if any.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::ParseErrorCode;
    /// assert_eq!(ParseErrorCode::from_str("duplicate-attribute"), Some(ParseErrorCode::DuplicateAttribute));
    /// assert_eq!(ParseErrorCode::from_str("no-such-code"), None);
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(s: &str) -> Option<ParseErrorCode> {
        ParseErrorCode::ALL.iter().copied().find(|c| c.as_str() == s)
    }
}

impl core::fmt::Display for ParseErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parse error with the byte span of the input it concerns (absolute offsets).
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{ParseError, ParseErrorCode, Span};
/// let e = ParseError { code: ParseErrorCode::EofInTag, span: Span::new(3, 5) };
/// assert_eq!(e.to_string(), "eof-in-tag at 3..5");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParseError {
    /// What went wrong.
    pub code: ParseErrorCode,
    /// Where: the bytes the error is about.
    pub span: Span,
}

impl core::fmt::Display for ParseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at {}..{}", self.code, self.span.start, self.span.end)
    }
}
