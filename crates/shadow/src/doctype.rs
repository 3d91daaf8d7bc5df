//! Quirks mode from a DOCTYPE token, as the
//! ["initial" insertion mode](https://html.spec.whatwg.org/multipage/parsing.html#the-initial-insertion-mode) decides it.

use htrewrite_tokenizer::Doctype;

use crate::QuirksMode;

const QUIRKS_PUBLIC_PREFIXES: &[&str] = &[
    "+//silmaril//dtd html pro v0r11 19970101//",
    "-//as//dtd html 3.0 aswedit + extensions//",
    "-//advasoft ltd//dtd html 3.0 aswedit + extensions//",
    "-//ietf//dtd html 2.0 level 1//",
    "-//ietf//dtd html 2.0 level 2//",
    "-//ietf//dtd html 2.0 strict level 1//",
    "-//ietf//dtd html 2.0 strict level 2//",
    "-//ietf//dtd html 2.0 strict//",
    "-//ietf//dtd html 2.0//",
    "-//ietf//dtd html 2.1e//",
    "-//ietf//dtd html 3.0//",
    "-//ietf//dtd html 3.2 final//",
    "-//ietf//dtd html 3.2//",
    "-//ietf//dtd html 3//",
    "-//ietf//dtd html level 0//",
    "-//ietf//dtd html level 1//",
    "-//ietf//dtd html level 2//",
    "-//ietf//dtd html level 3//",
    "-//ietf//dtd html strict level 0//",
    "-//ietf//dtd html strict level 1//",
    "-//ietf//dtd html strict level 2//",
    "-//ietf//dtd html strict level 3//",
    "-//ietf//dtd html strict//",
    "-//ietf//dtd html//",
    "-//metrius//dtd metrius presentational//",
    "-//microsoft//dtd internet explorer 2.0 html strict//",
    "-//microsoft//dtd internet explorer 2.0 html//",
    "-//microsoft//dtd internet explorer 2.0 tables//",
    "-//microsoft//dtd internet explorer 3.0 html strict//",
    "-//microsoft//dtd internet explorer 3.0 html//",
    "-//microsoft//dtd internet explorer 3.0 tables//",
    "-//netscape comm. corp.//dtd html//",
    "-//netscape comm. corp.//dtd strict html//",
    "-//o'reilly and associates//dtd html 2.0//",
    "-//o'reilly and associates//dtd html extended 1.0//",
    "-//o'reilly and associates//dtd html extended relaxed 1.0//",
    "-//sq//dtd html 2.0 hotmetal + extensions//",
    "-//softquad software//dtd hotmetal pro 6.0::19990601::extensions to html 4.0//",
    "-//softquad//dtd hotmetal pro 4.0::19971010::extensions to html 4.0//",
    "-//spyglass//dtd html 2.0 extended//",
    "-//sun microsystems corp.//dtd hotjava html//",
    "-//sun microsystems corp.//dtd hotjava strict html//",
    "-//w3c//dtd html 3 1995-03-24//",
    "-//w3c//dtd html 3.2 draft//",
    "-//w3c//dtd html 3.2 final//",
    "-//w3c//dtd html 3.2//",
    "-//w3c//dtd html 3.2s draft//",
    "-//w3c//dtd html 4.0 frameset//",
    "-//w3c//dtd html 4.0 transitional//",
    "-//w3c//dtd html experimental 19960712//",
    "-//w3c//dtd html experimental 970421//",
    "-//w3c//dtd w3 html//",
    "-//w3o//dtd w3 html 3.0//",
    "-//webtechs//dtd mozilla html 2.0//",
    "-//webtechs//dtd mozilla html//",
];

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The quirks mode a DOCTYPE selects (not in an iframe srcdoc document).
pub(crate) fn quirks_mode(d: &Doctype) -> QuirksMode {
    let public = d.public_id.as_deref();
    let system = d.system_id.as_deref();
    if d.force_quirks || d.name.as_deref() != Some("html") {
        return QuirksMode::Quirks;
    }
    if let Some(p) = public {
        if p.eq_ignore_ascii_case("-//W3O//DTD W3 HTML Strict 3.0//EN//")
            || p.eq_ignore_ascii_case("-/W3C/DTD HTML 4.0 Transitional/EN")
            || p.eq_ignore_ascii_case("HTML")
            || QUIRKS_PUBLIC_PREFIXES.iter().any(|q| starts_with_ci(p, q))
        {
            return QuirksMode::Quirks;
        }
        if system.is_none()
            && (starts_with_ci(p, "-//w3c//dtd html 4.01 frameset//")
                || starts_with_ci(p, "-//w3c//dtd html 4.01 transitional//"))
        {
            return QuirksMode::Quirks;
        }
    }
    if system.is_some_and(|s| s.eq_ignore_ascii_case("http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd")) {
        return QuirksMode::Quirks;
    }
    if let Some(p) = public {
        if starts_with_ci(p, "-//w3c//dtd xhtml 1.0 frameset//")
            || starts_with_ci(p, "-//w3c//dtd xhtml 1.0 transitional//")
        {
            return QuirksMode::LimitedQuirks;
        }
        if system.is_some()
            && (starts_with_ci(p, "-//w3c//dtd html 4.01 frameset//")
                || starts_with_ci(p, "-//w3c//dtd html 4.01 transitional//"))
        {
            return QuirksMode::LimitedQuirks;
        }
    }
    QuirksMode::NoQuirks
}
