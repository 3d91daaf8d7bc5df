//! The scanner's states, named after the Standard's tokenizer states.

/// A state of the raw scanner.
///
/// The scanner finds token boundaries; it runs the Standard's states that
/// decide where tokens end (tags and attributes, comment ends, script data
/// escapes, RCDATA/RAWTEXT end tags, CDATA, processing instructions) and
/// leaves decoding to the token views. Each variant names the spec state it
/// follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// [Data state](https://html.spec.whatwg.org/multipage/parsing.html#data-state).
    Data,
    /// [RCDATA state](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-state).
    Rcdata,
    /// [RAWTEXT state](https://html.spec.whatwg.org/multipage/parsing.html#rawtext-state).
    Rawtext,
    /// [Script data state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-state).
    ScriptData,
    /// [PLAINTEXT state](https://html.spec.whatwg.org/multipage/parsing.html#plaintext-state).
    Plaintext,
    /// [Tag open state](https://html.spec.whatwg.org/multipage/parsing.html#tag-open-state).
    TagOpen,
    /// [End tag open state](https://html.spec.whatwg.org/multipage/parsing.html#end-tag-open-state).
    EndTagOpen,
    /// [Tag name state](https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state).
    TagName,
    /// [RCDATA less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-less-than-sign-state).
    RcdataLessThanSign,
    /// [RCDATA end tag open state](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-end-tag-open-state).
    RcdataEndTagOpen,
    /// [RCDATA end tag name state](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-end-tag-name-state).
    RcdataEndTagName,
    /// [RAWTEXT less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#rawtext-less-than-sign-state).
    RawtextLessThanSign,
    /// [RAWTEXT end tag open state](https://html.spec.whatwg.org/multipage/parsing.html#rawtext-end-tag-open-state).
    RawtextEndTagOpen,
    /// [RAWTEXT end tag name state](https://html.spec.whatwg.org/multipage/parsing.html#rawtext-end-tag-name-state).
    RawtextEndTagName,
    /// [Script data less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-less-than-sign-state).
    ScriptDataLessThanSign,
    /// [Script data end tag open state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-end-tag-open-state).
    ScriptDataEndTagOpen,
    /// [Script data end tag name state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-end-tag-name-state).
    ScriptDataEndTagName,
    /// [Script data escape start state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escape-start-state).
    ScriptDataEscapeStart,
    /// [Script data escape start dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escape-start-dash-state).
    ScriptDataEscapeStartDash,
    /// [Script data escaped state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-state).
    ScriptDataEscaped,
    /// [Script data escaped dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-dash-state).
    ScriptDataEscapedDash,
    /// [Script data escaped dash dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-dash-dash-state).
    ScriptDataEscapedDashDash,
    /// [Script data escaped less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-less-than-sign-state).
    ScriptDataEscapedLessThanSign,
    /// [Script data escaped end tag open state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-end-tag-open-state).
    ScriptDataEscapedEndTagOpen,
    /// [Script data escaped end tag name state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-end-tag-name-state).
    ScriptDataEscapedEndTagName,
    /// [Script data double escape start state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escape-start-state).
    ScriptDataDoubleEscapeStart,
    /// [Script data double escaped state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-state).
    ScriptDataDoubleEscaped,
    /// [Script data double escaped dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-dash-state).
    ScriptDataDoubleEscapedDash,
    /// [Script data double escaped dash dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-dash-dash-state).
    ScriptDataDoubleEscapedDashDash,
    /// [Script data double escaped less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-less-than-sign-state).
    ScriptDataDoubleEscapedLessThanSign,
    /// [Script data double escape end state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escape-end-state).
    ScriptDataDoubleEscapeEnd,
    /// [Before attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-name-state).
    BeforeAttributeName,
    /// [Attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-name-state).
    AttributeName,
    /// [After attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-name-state).
    AfterAttributeName,
    /// [Before attribute value state](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-value-state).
    BeforeAttributeValue,
    /// [Attribute value (double-quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(double-quoted)-state).
    AttributeValueDoubleQuoted,
    /// [Attribute value (single-quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(single-quoted)-state).
    AttributeValueSingleQuoted,
    /// [Attribute value (unquoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(unquoted)-state).
    AttributeValueUnquoted,
    /// [After attribute value (quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-value-(quoted)-state).
    AfterAttributeValueQuoted,
    /// [Self-closing start tag state](https://html.spec.whatwg.org/multipage/parsing.html#self-closing-start-tag-state).
    SelfClosingStartTag,
    /// [Bogus comment state](https://html.spec.whatwg.org/multipage/parsing.html#bogus-comment-state).
    BogusComment,
    /// [Markup declaration open state](https://html.spec.whatwg.org/multipage/parsing.html#markup-declaration-open-state);
    /// the field counts the bytes after `<!` matched so far against `--`,
    /// `DOCTYPE` or `[CDATA[`.
    MarkupDeclarationOpen(u8),
    /// [Comment start state](https://html.spec.whatwg.org/multipage/parsing.html#comment-start-state).
    CommentStart,
    /// [Comment start dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-start-dash-state).
    CommentStartDash,
    /// [Comment state](https://html.spec.whatwg.org/multipage/parsing.html#comment-state)
    /// (the comment less-than sign states change no boundary and are folded in
    /// here; their `nested-comment` errors come from the comment view).
    Comment,
    /// [Comment end dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-dash-state).
    CommentEndDash,
    /// [Comment end state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-state).
    CommentEnd,
    /// [Comment end bang state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-bang-state).
    CommentEndBang,
    /// [DOCTYPE state](https://html.spec.whatwg.org/multipage/parsing.html#doctype-state)
    /// and the states after it: a DOCTYPE always ends at the first `>`.
    Doctype,
    /// [CDATA section state](https://html.spec.whatwg.org/multipage/parsing.html#cdata-section-state).
    CdataSection,
    /// [CDATA section bracket state](https://html.spec.whatwg.org/multipage/parsing.html#cdata-section-bracket-state).
    CdataSectionBracket,
    /// [CDATA section end state](https://html.spec.whatwg.org/multipage/parsing.html#cdata-section-end-state).
    CdataSectionEnd,
    /// [Processing instruction open state](https://html.spec.whatwg.org/multipage/parsing.html#processing-instruction-open-state).
    ProcessingInstructionOpen,
    /// [Processing instruction target state](https://html.spec.whatwg.org/multipage/parsing.html#processing-instruction-target-state).
    ProcessingInstructionTarget,
    /// Processing instruction data (after the target): ends at the first `>`.
    ProcessingInstructionData,
}
