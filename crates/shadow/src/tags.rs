//! Element categories of the Standard, by namespace and local name, and the
//! name adjustments of foreign content.

use crate::{AttrNamespace, Namespace, ShadowAttr};

/// Category bits stored with each open element (see [`cats`]).
pub(crate) mod cat {
    /// A boundary of ["has an element in scope"](https://html.spec.whatwg.org/multipage/parsing.html#has-an-element-in-scope).
    pub const SCOPE: u16 = 1 << 0;
    /// A boundary of "in list item scope".
    pub const LIST_ITEM_SCOPE: u16 = 1 << 1;
    /// A boundary of "in button scope".
    pub const BUTTON_SCOPE: u16 = 1 << 2;
    /// A boundary of "in table scope".
    pub const TABLE_SCOPE: u16 = 1 << 3;
    /// The [special](https://html.spec.whatwg.org/multipage/parsing.html#special) category.
    pub const SPECIAL: u16 = 1 << 4;
    /// An element in the HTML namespace.
    pub const HTML: u16 = 1 << 5;
    /// Special, but not `address`, `div` or `p` (the `<li>`/`<dd>` loops stop there).
    pub const SPECIAL_NOT_ADP: u16 = 1 << 6;
    /// An HTML element that [resetting the insertion mode](https://html.spec.whatwg.org/multipage/parsing.html#reset-the-insertion-mode-appropriately)
    /// stops at (`td`, `tr`, `table`, `body`, `html`, …).
    pub const RESET: u16 = 1 << 7;
    /// An [HTML integration point](https://html.spec.whatwg.org/multipage/parsing.html#html-integration-point).
    pub const HTML_INTEGRATION_POINT: u16 = 1 << 8;
    /// A [MathML text integration point](https://html.spec.whatwg.org/multipage/parsing.html#mathml-text-integration-point).
    pub const MATHML_TEXT_INTEGRATION_POINT: u16 = 1 << 9;
    /// An HTML element popped by "generate implied end tags" (not indexed).
    pub const IMPLIED_END: u16 = 1 << 10;
    /// An HTML element popped by "generate all implied end tags thoroughly" (not indexed).
    pub const IMPLIED_END_THOROUGHLY: u16 = 1 << 11;
    /// Not a category: the element's name is not its key's string (see
    /// `Stack::cased`), set by the stack.
    pub const CASED: u16 = 1 << 12;
    /// The number of category bits that get an index of the stack.
    pub const INDEXED: usize = 8;
}

/// The category bits of an element (`annotation_xml_html`: an `annotation-xml`
/// whose `encoding` is `text/html` or `application/xhtml+xml`).
pub(crate) const fn cats(ns: Namespace, name: &str, annotation_xml_html: bool) -> u16 {
    let mut c = 0;
    match ns {
        Namespace::Html => {
            c |= cat::HTML;
            // spec (2025, relaxed `<select>`): `select` bounds the default scope too.
            if one_of(
                name,
                &["applet", "caption", "html", "table", "td", "th", "marquee", "object", "select", "template"],
            ) {
                c |= cat::SCOPE | cat::LIST_ITEM_SCOPE | cat::BUTTON_SCOPE;
            }
            if one_of(name, &["ol", "ul"]) {
                c |= cat::LIST_ITEM_SCOPE;
            }
            if eq(name, "button") {
                c |= cat::BUTTON_SCOPE;
            }
            if one_of(
                name,
                &[
                    "td", "th", "tr", "tbody", "thead", "tfoot", "caption", "colgroup", "table", "template", "head",
                    "body", "frameset", "html",
                ],
            ) {
                c |= cat::RESET;
            }
            if one_of(name, &["html", "table", "template"]) {
                c |= cat::TABLE_SCOPE;
            }
            if has_implied_end_tag(name) {
                c |= cat::IMPLIED_END;
            }
            if has_implied_end_tag_thoroughly(name) {
                c |= cat::IMPLIED_END_THOROUGHLY;
            }
            if is_special_html(name) {
                c |= cat::SPECIAL;
                if !one_of(name, &["address", "div", "p"]) {
                    c |= cat::SPECIAL_NOT_ADP;
                }
            }
        }
        Namespace::MathMl => {
            if one_of(name, &["mi", "mo", "mn", "ms", "mtext"]) {
                c |= cat::SCOPE | cat::LIST_ITEM_SCOPE | cat::BUTTON_SCOPE | cat::SPECIAL | cat::SPECIAL_NOT_ADP;
                c |= cat::MATHML_TEXT_INTEGRATION_POINT;
            }
            if eq(name, "annotation-xml") {
                c |= cat::SCOPE | cat::LIST_ITEM_SCOPE | cat::BUTTON_SCOPE | cat::SPECIAL | cat::SPECIAL_NOT_ADP;
                if annotation_xml_html {
                    c |= cat::HTML_INTEGRATION_POINT;
                }
            }
        }
        Namespace::Svg => {
            if one_of(name, &["foreignObject", "desc", "title"]) {
                c |= cat::SCOPE | cat::LIST_ITEM_SCOPE | cat::BUTTON_SCOPE | cat::SPECIAL | cat::SPECIAL_NOT_ADP;
                c |= cat::HTML_INTEGRATION_POINT;
            }
        }
    }
    c
}

/// Whether an HTML element may host a shadow root (the DOM's
/// [attach a shadow root](https://dom.spec.whatwg.org/#concept-attach-a-shadow-root)):
/// a valid custom element name or one of a fixed list.
pub(crate) fn can_be_shadow_host(name: &str) -> bool {
    let listed = matches!(
        name,
        "article"
            | "aside"
            | "blockquote"
            | "body"
            | "div"
            | "footer"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "main"
            | "nav"
            | "p"
            | "section"
            | "span"
    );
    let custom = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.contains('-')
        && !name.bytes().any(|b| b.is_ascii_uppercase())
        && !matches!(
            name,
            "annotation-xml"
                | "color-profile"
                | "font-face"
                | "font-face-src"
                | "font-face-uri"
                | "font-face-format"
                | "font-face-name"
                | "missing-glyph"
        );
    listed || custom
}

/// Whether an HTML element is in the [special](https://html.spec.whatwg.org/multipage/parsing.html#special) category.
pub(crate) const fn is_special_html(name: &str) -> bool {
    one_of(
        name,
        &[
            "address",
            "applet",
            "area",
            "article",
            "aside",
            "base",
            "basefont",
            "bgsound",
            "blockquote",
            "body",
            "br",
            "button",
            "caption",
            "center",
            "col",
            "colgroup",
            "dd",
            "details",
            "dir",
            "div",
            "dl",
            "dt",
            "embed",
            "fieldset",
            "figcaption",
            "figure",
            "footer",
            "form",
            "frame",
            "frameset",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "head",
            "header",
            "hgroup",
            "hr",
            "html",
            "iframe",
            "img",
            "input",
            "keygen",
            "li",
            "link",
            "listing",
            "main",
            "marquee",
            "menu",
            "meta",
            "nav",
            "noembed",
            "noframes",
            "noscript",
            "object",
            "ol",
            "p",
            "param",
            "plaintext",
            "pre",
            "script",
            "search",
            "section",
            "select",
            "source",
            "style",
            "summary",
            "table",
            "tbody",
            "td",
            "template",
            "textarea",
            "tfoot",
            "th",
            "thead",
            "title",
            "tr",
            "track",
            "ul",
            "wbr",
            "xmp",
        ],
    )
}

/// What tree construction itself does with the attributes of a start tag,
/// for a sink that does not read them ([`attribute_use`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AttributeUse {
    /// Nothing: they need not be decoded.
    Unread,
    /// The list of active formatting elements keeps them, for the Noah's
    /// Ark clause (which compares attributes) and for clones (which carry
    /// them); most elements need neither, so they may stay undecoded until
    /// then.
    Kept,
    /// Rules read them while the tag is processed.
    Read,
}

/// [`AttributeUse`] of a start tag named `name` (ASCII-lowercase): the
/// [formatting elements](https://html.spec.whatwg.org/multipage/parsing.html#formatting)
/// keep theirs, but `font` leaves foreign content by its `color`, `face`
/// or `size`; `input` is read for `type=hidden` (in tables, and for
/// frameset-ok), `select` for `multiple` and `option` for `selected` and
/// `disabled` (the selectedness behind
/// [`Event::SelectedContentCloned`](crate::Event::SelectedContentCloned)),
/// `template` for `shadowrootmode` and MathML `annotation-xml` for
/// `encoding` (an HTML integration point).
///
/// A `const fn`: the table of the known names ([`crate::names::attribute_use_of`])
/// is made from it at compile time.
pub(crate) const fn attribute_use(name: &str) -> AttributeUse {
    match name.as_bytes() {
        b"font" | b"input" | b"select" | b"option" | b"template" | b"annotation-xml" => AttributeUse::Read,
        _ if is_formatting(Namespace::Html, name) => AttributeUse::Kept,
        _ => AttributeUse::Unread,
    }
}

/// Whether an element is one of the
/// [formatting elements](https://html.spec.whatwg.org/multipage/parsing.html#formatting)
/// (`a`, `b`, `big`, `code`, `em`, `font`, `i`, `nobr`, `s`, `small`,
/// `strike`, `strong`, `tt`, `u`, in the HTML namespace): the elements the
/// list of active formatting elements holds, which the
/// [adoption agency algorithm](https://html.spec.whatwg.org/multipage/parsing.html#adoption-agency-algorithm)
/// runs for.
///
/// # Example
/// ```
/// use htrewrite_shadow::{Namespace, is_formatting};
/// assert!(is_formatting(Namespace::Html, "b") && !is_formatting(Namespace::Svg, "b"));
/// assert!(!is_formatting(Namespace::Html, "div"));
/// ```
pub const fn is_formatting(ns: Namespace, name: &str) -> bool {
    // By length first: called for every element a matcher opens.
    matches!(ns, Namespace::Html)
        && match name.as_bytes() {
            [b] => matches!(b, b'a' | b'b' | b'i' | b's' | b'u'),
            [a, b] => matches!((a, b), (b'e', b'm') | (b't', b't')),
            b"big" | b"code" | b"font" | b"nobr" | b"small" | b"strike" | b"strong" => true,
            _ => false,
        }
}

/// Whether an element is in the
/// [special](https://html.spec.whatwg.org/multipage/parsing.html#special)
/// category: the only elements that can be the adoption agency's *furthest
/// block*, the element it moves out of a formatting element together with
/// everything open under it.
///
/// # Example
/// ```
/// use htrewrite_shadow::{Namespace, is_special};
/// assert!(is_special(Namespace::Html, "div") && is_special(Namespace::Svg, "foreignObject"));
/// assert!(!is_special(Namespace::Html, "span"));
/// ```
pub const fn is_special(ns: Namespace, name: &str) -> bool {
    match ns {
        Namespace::Html => is_special_html(name),
        _ => cats(ns, name, false) & cat::SPECIAL != 0,
    }
}

/// Elements popped by [generate implied end tags](https://html.spec.whatwg.org/multipage/parsing.html#generate-implied-end-tags).
pub(crate) const fn has_implied_end_tag(name: &str) -> bool {
    one_of(name, &["dd", "dt", "li", "optgroup", "option", "p", "rb", "rp", "rt", "rtc"])
}

/// Elements popped by [generate all implied end tags thoroughly](https://html.spec.whatwg.org/multipage/parsing.html#generate-all-implied-end-tags-thoroughly).
pub(crate) const fn has_implied_end_tag_thoroughly(name: &str) -> bool {
    has_implied_end_tag(name) || one_of(name, &["caption", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"])
}

/// `a == b`, in constants.
pub(crate) const fn eq(a: &str, b: &str) -> bool {
    bytes_eq(a, b, false)
}

/// `a.eq_ignore_ascii_case(b)`, in constants.
pub(crate) const fn eq_ignore_ascii_case(a: &str, b: &str) -> bool {
    bytes_eq(a, b, true)
}

/// Whether `a` and `b` have the same bytes (but for ASCII case, with
/// `ignore_case`): the one comparison of [`eq`] and [`eq_ignore_ascii_case`].
const fn bytes_eq(a: &str, b: &str, ignore_case: bool) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        let same = if ignore_case { a[i].eq_ignore_ascii_case(&b[i]) } else { a[i] == b[i] };
        if !same {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `name` is one of `list`, in constants (the category tables of
/// known names are built at compile time, `crate::names`).
const fn one_of(name: &str, list: &[&str]) -> bool {
    let mut i = 0;
    while i < list.len() {
        if eq(name, list[i]) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `c` is ASCII whitespace as the tree builder means it (TAB, LF, FF, CR, SPACE).
pub(crate) fn is_ws(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

/// Length of the leading whitespace of `s`.
pub(crate) fn ws_prefix_len(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_whitespace).count()
}

/// Whether the bytes `raw` of a text token are ASCII whitespace alone (at
/// least one; a character reference is not, whatever it stands for). The
/// standard library's ASCII whitespace is the Standard's: tab, LF, FF, CR
/// and space.
#[inline]
pub(crate) fn is_whitespace_text(raw: &[u8]) -> bool {
    !raw.is_empty() && raw.iter().all(u8::is_ascii_whitespace)
}

/// [Adjust SVG tag names](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inforeign).
pub(crate) fn adjust_svg_tag_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "altglyph" => "altGlyph",
        "altglyphdef" => "altGlyphDef",
        "altglyphitem" => "altGlyphItem",
        "animatecolor" => "animateColor",
        "animatemotion" => "animateMotion",
        "animatetransform" => "animateTransform",
        "clippath" => "clipPath",
        "feblend" => "feBlend",
        "fecolormatrix" => "feColorMatrix",
        "fecomponenttransfer" => "feComponentTransfer",
        "fecomposite" => "feComposite",
        "feconvolvematrix" => "feConvolveMatrix",
        "fediffuselighting" => "feDiffuseLighting",
        "fedisplacementmap" => "feDisplacementMap",
        "fedistantlight" => "feDistantLight",
        "fedropshadow" => "feDropShadow",
        "feflood" => "feFlood",
        "fefunca" => "feFuncA",
        "fefuncb" => "feFuncB",
        "fefuncg" => "feFuncG",
        "fefuncr" => "feFuncR",
        "fegaussianblur" => "feGaussianBlur",
        "feimage" => "feImage",
        "femerge" => "feMerge",
        "femergenode" => "feMergeNode",
        "femorphology" => "feMorphology",
        "feoffset" => "feOffset",
        "fepointlight" => "fePointLight",
        "fespecularlighting" => "feSpecularLighting",
        "fespotlight" => "feSpotLight",
        "fetile" => "feTile",
        "feturbulence" => "feTurbulence",
        "foreignobject" => "foreignObject",
        "glyphref" => "glyphRef",
        "lineargradient" => "linearGradient",
        "radialgradient" => "radialGradient",
        "textpath" => "textPath",
        _ => return None,
    })
}

/// [Adjust SVG attributes](https://html.spec.whatwg.org/multipage/parsing.html#adjust-svg-attributes).
fn adjust_svg_attr_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "attributename" => "attributeName",
        "attributetype" => "attributeType",
        "basefrequency" => "baseFrequency",
        "baseprofile" => "baseProfile",
        "calcmode" => "calcMode",
        "clippathunits" => "clipPathUnits",
        "diffuseconstant" => "diffuseConstant",
        "edgemode" => "edgeMode",
        "filterunits" => "filterUnits",
        "glyphref" => "glyphRef",
        "gradienttransform" => "gradientTransform",
        "gradientunits" => "gradientUnits",
        "kernelmatrix" => "kernelMatrix",
        "kernelunitlength" => "kernelUnitLength",
        "keypoints" => "keyPoints",
        "keysplines" => "keySplines",
        "keytimes" => "keyTimes",
        "lengthadjust" => "lengthAdjust",
        "limitingconeangle" => "limitingConeAngle",
        "markerheight" => "markerHeight",
        "markerunits" => "markerUnits",
        "markerwidth" => "markerWidth",
        "maskcontentunits" => "maskContentUnits",
        "maskunits" => "maskUnits",
        "numoctaves" => "numOctaves",
        "pathlength" => "pathLength",
        "patterncontentunits" => "patternContentUnits",
        "patterntransform" => "patternTransform",
        "patternunits" => "patternUnits",
        "pointsatx" => "pointsAtX",
        "pointsaty" => "pointsAtY",
        "pointsatz" => "pointsAtZ",
        "preservealpha" => "preserveAlpha",
        "preserveaspectratio" => "preserveAspectRatio",
        "primitiveunits" => "primitiveUnits",
        "refx" => "refX",
        "refy" => "refY",
        "repeatcount" => "repeatCount",
        "repeatdur" => "repeatDur",
        "requiredextensions" => "requiredExtensions",
        "requiredfeatures" => "requiredFeatures",
        "specularconstant" => "specularConstant",
        "specularexponent" => "specularExponent",
        "spreadmethod" => "spreadMethod",
        "startoffset" => "startOffset",
        "stddeviation" => "stdDeviation",
        "stitchtiles" => "stitchTiles",
        "surfacescale" => "surfaceScale",
        "systemlanguage" => "systemLanguage",
        "tablevalues" => "tableValues",
        "targetx" => "targetX",
        "targety" => "targetY",
        "textlength" => "textLength",
        "viewbox" => "viewBox",
        "viewtarget" => "viewTarget",
        "xchannelselector" => "xChannelSelector",
        "ychannelselector" => "yChannelSelector",
        "zoomandpan" => "zoomAndPan",
        _ => return None,
    })
}

/// [Adjust foreign attributes](https://html.spec.whatwg.org/multipage/parsing.html#adjust-foreign-attributes).
fn adjust_foreign_attr(name: &str) -> Option<(AttrNamespace, &'static str)> {
    Some(match name {
        "xlink:actuate" => (AttrNamespace::XLink, "actuate"),
        "xlink:arcrole" => (AttrNamespace::XLink, "arcrole"),
        "xlink:href" => (AttrNamespace::XLink, "href"),
        "xlink:role" => (AttrNamespace::XLink, "role"),
        "xlink:show" => (AttrNamespace::XLink, "show"),
        "xlink:title" => (AttrNamespace::XLink, "title"),
        "xlink:type" => (AttrNamespace::XLink, "type"),
        "xml:lang" => (AttrNamespace::Xml, "lang"),
        "xml:space" => (AttrNamespace::Xml, "space"),
        "xmlns" => (AttrNamespace::Xmlns, "xmlns"),
        "xmlns:xlink" => (AttrNamespace::Xmlns, "xlink"),
        _ => return None,
    })
}

/// Applies the attribute adjustments for an element of namespace `ns`
/// (MathML: `definitionURL`; SVG: camel case; both: foreign attributes).
pub(crate) fn adjust_attrs(ns: Namespace, attrs: &mut [ShadowAttr]) {
    if ns == Namespace::Html {
        return;
    }
    for a in attrs {
        // Names replaced in place (no allocation once the buffer is large enough).
        if ns == Namespace::MathMl && a.name == "definitionurl" {
            a.name.replace_range(.., "definitionURL");
        } else if ns == Namespace::Svg
            && let Some(n) = adjust_svg_attr_name(&a.name)
        {
            a.name.replace_range(.., n);
        }
        if let Some((ans, local)) = adjust_foreign_attr(&a.name) {
            a.namespace = ans;
            a.name.replace_range(.., local);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The standard library's ASCII whitespace, read by
    /// [`super::is_whitespace_text`] and [`super::ws_prefix_len`], is the
    /// Standard's ([`super::is_ws`]) on every byte.
    #[test]
    fn ascii_whitespace_is_the_standards() {
        for b in 0..=u8::MAX {
            assert_eq!(b.is_ascii_whitespace(), super::is_ws(char::from(b)), "byte {b:#04x}");
        }
    }
}
