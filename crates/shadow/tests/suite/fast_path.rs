//! The in-body fast path (`src/fast.rs`, issue 16): which tokens it takes,
//! and that it agrees with the full rules on every known HTML element name
//! in several contexts.
//!
//! The suite's `main` turns on `htrewrite_shadow::check_fast_path`: every token the
//! fast path takes also runs through the full rules on a copy of the tree
//! builder, and any difference in events or state panics. So each
//! case here fails if the fast path takes a token it should not, and the
//! counts below fail if it stops taking the common ones.

use htrewrite_shadow::{
    Event, EventSink, NoEvents, Shadow, ShadowOptions, ShadowSink, fast_path_taken, inert_comments_taken,
    inert_text_taken,
};
use htrewrite_tokenizer::{Feedback, Token, TokenKind, TokenSink, Tokenizer};
use libtest_mimic::{Failed, Trial};

/// Feeds `html` (whole, then byte by byte) and returns how many tokens the
/// fast path took.
fn taken(html: &str, scripting: bool) -> Result<u64, Failed> {
    taken_by(html, scripting, fast_path_taken)
}

/// [`taken`] for `counter`: [`fast_path_taken`], or [`inert_text_taken`]
/// (text tokens `Shadow::skip_inert_text` took: the cases' texts are one
/// character each, one token whatever the chunking).
fn taken_by(html: &str, scripting: bool, counter: fn() -> u64) -> Result<u64, Failed> {
    let [whole, bytes] = taken_each(html, scripting, counter);
    if whole != bytes {
        return Err(format!("{html:?}: taken {whole} times whole, {bytes} times byte by byte").into());
    }
    Ok(whole)
}

/// How many tokens `counter` counts with `html` fed whole, then byte by byte.
fn taken_each(html: &str, scripting: bool, counter: fn() -> u64) -> [u64; 2] {
    counted_each(html, counter, |pieces| {
        let options = ShadowOptions { scripting, ..ShadowOptions::default() };
        let mut sink = ShadowSink::new(Shadow::new(options), NoEvents);
        let mut tokenizer = Tokenizer::new();
        for piece in pieces {
            tokenizer.feed(piece, &mut sink);
        }
        tokenizer.finish(&mut sink);
        sink.finish();
    })
}

/// How many tokens `counter` counts while `run` parses `html` given whole,
/// then byte by byte.
fn counted_each(html: &str, counter: fn() -> u64, run: impl Fn(&[&[u8]])) -> [u64; 2] {
    each_chunking(html, |pieces| {
        let before = counter();
        run(pieces);
        counter() - before
    })
}

/// What `run` counts while it parses `html` given whole, then byte by byte.
fn each_chunking(html: &str, run: impl Fn(&[&[u8]]) -> u64) -> [u64; 2] {
    [vec![html.as_bytes()], html.as_bytes().chunks(1).collect::<Vec<_>>()].map(|pieces| run(&pieces))
}

/// `(name, document, tokens the fast path takes)`.
const CASES: &[(&str, &str, u64)] = &[
    // The common case.
    ("div_start_and_end", "<body><div></div>", 2),
    ("any_other_names", "<body><span>x</span><section></section><my-widget>y</my-widget>", 6),
    ("div_closes_p", "<body><p>x<div>y</div>", 3),
    ("formatting_start_and_end", "<body><b>x</b>", 2),
    ("a_start_and_end", "<body><a href=x>y</a>", 2),
    ("formatting_end_after_inner_closed", "<body><b><span></span></b>", 4),
    ("reconstructs_before_any_other", "<body><p><b>x</p><span>y</span>", 4),
    ("end_of_li_and_ul", "<body><ul><li>x</li></ul>", 4),
    ("end_p_and_heading_when_current", "<body><p>x</p><h2>y</h2>", 4),
    ("upper_case_tags", "<BODY><DIV>x</DIV>", 2),
    // End tags without a short known id, decided from their bytes
    // (`fast_end_by_raw_name`): names outside the table, long known names,
    // in any ASCII case.
    (
        "names_without_short_ids",
        "<body><emu-xref>x</EMU-Xref><blockquote>y</BlockQuote><my-element-name>z</my-element-name>",
        6,
    ),
    // A name the tokenizer changes (NUL: U+FFFD) never equals its bytes: its
    // end tag is taken after the name is decoded (`in_body_fast_end`);
    // `</my-a>` is not the current node's; `</foo>` in the `svg` is the
    // current foreign element's (`foreign_fast_end_by_raw_name`).
    ("names_without_short_ids_not_taken", "<body><x\0y>a</x\0y><my-a><my-b></my-a><svg><foo></foo>", 5),
    // What it must not take.
    ("before_body", "<div>x</div>", 1),
    // Foster-parented `<div>` and `</div>`, `<tr>` "in table" (an implied
    // `tbody`) and "in row" (it closes the row): the full rules. "In row"
    // `<td>` with its row the current node and "in cell" `</td>` closing the
    // current cell: the table fast path (`table_fast_start`, `table_fast_end_by_key`).
    // "In cell", `<span>`, `</span>` go by the rules of "in body": taken. The
    // last `</td>` has a `b` above its cell: the full rules.
    ("table_modes", "<table><div></div><tr><td><span></span></td><tr><td><b>x</td>", 6),
    // `<td>`, `</td>`, `<th>`, `<p>`, `</tr>`; `</th>` with the `p` open, the
    // inner table and `</table>` go the full way.
    ("cell_end_tags", "<table><tr><td><table></table></td><th><p>x</th></tr></table>", 5),
    // "In table body" `<tr>` with its section the current node.
    ("table_body_rows", "<table><tbody><tr><td>x</td></tr><tr><th>y</th></tr></tbody></table>", 8),
    // A foster-parented `div` is the current node "in table body": `<tr>`
    // goes the full way (it pops the `div`); the `<td>` in its row is taken.
    ("table_body_row_after_foster_parented", "<table><tbody><div><tr><td>x", 1),
    // A cell's end tag with an element open in the cell, a `</tr>` in a
    // cell: not taken. An SVG `td` in a cell is foreign content: its `</td>`
    // and `</svg>` pop the current foreign element.
    ("table_ends_not_current", "<table><tr><td><span>x</td><td><svg><td></td></svg></td></tr></table>", 7),
    // "In cell" a `<td>`, `<th>` or `<tr>` closing the cell that is the
    // current node (cells without end tags): the table fast path closes the
    // cell (and for `<tr>` its row) and inserts. The first `<tr>` (an
    // implied `tbody`) and `</table>` go the full way.
    ("cells_closed_by_cells", "<table><tr><td>a<td>b<th>c<tr><td>d<tr><th>e</table>", 7),
    // What it must not take "in cell": a `<td>` with a `p` open in the cell,
    // a `<td>` with a `b` open, a `<td>` whose cell is in a template (no row
    // below it), a `<tr>` whose row is in a template (no section below it).
    // Taken: the first `<td>`, `<p>`, `<b>`, and `<td>` in the template's row.
    (
        "cells_closed_by_cells_not_taken",
        "<table><tr><td><p>a<td>b<b>c<td>d</table><template><td>e<td>f</template><template><tr><td>g<tr></template>",
        4,
    ),
    // `</ul>` and `</dl>` over their last items (`block_end_after_implied`).
    ("list_items", "<body><ul><li>a<li>b<p>c<li>d</ul><dl><dt>e<dd>f<dt>g</dl>", 11),
    // `<div>` breaks out of the `svg` (full rules), then `</div>` is common.
    ("foreign_content", "<body><svg><div>x</div>", 1),
    // `<span>` in an `mi` (full rules), then `</span>` is common.
    ("mathml_text_integration_point", "<body><math><mi><span>x</span>", 1),
    // "in template" sends `<div>` to "in body" (full rules); `</div>` is then common.
    ("template_contents", "<template><div></div></template>", 1),
    ("end_tag_not_current", "<body><div><span></div>", 2),
    ("nested_formatting_end_tags", "<body><i><em>x</em></i>", 4),
    // `<nobr>` has its own start rule; its end tag is the common adoption.
    ("nobr", "<body><nobr>y</nobr>", 1),
    // The adoption agency's other cases.
    ("formatting_end_not_current", "<body><b><i>x</b>", 2),
    ("formatting_end_with_furthest_block", "<body><b>x<p>y</b>", 2),
    ("second_a_runs_the_adoption_agency", "<body><a>1<a>2</a>", 2),
    // The fourth `<b>` drops the first from the list (Noah's Ark): its end
    // tag is the adoption agency's step 2.
    ("noahs_ark", "<body><b><b><b><b>x</b></b></b></b>", 7),
    ("form_end_tag", "<body><form></form>", 0),
    // Elements whose text the tokenizer reads in another mode: their start
    // tags go the full way, their end tags "text"'s (`text_fast_end`).
    ("text_and_raw_text_elements", "<body><textarea>x</textarea><title>y</title><xmp>z</xmp>", 3),
    ("noscript_with_scripting", "<body><noscript>x</noscript>", 1),
    ("script_and_style_in_head", "<head><script>a</script><style>b</style></head>", 2),
    // `<input>` once frameset-ok is "not ok" (else its type decides it)
    // and `<hr>`, with no select open (else they close it or what is in it).
    ("void_elements", "<body><img><br><input><hr>", 4),
    // `<p>` implies the body (full rules), which leaves frameset-ok "ok":
    // the first `<input>` goes the full way, `<img>` sets it "not ok".
    ("input_with_frameset_ok", "<p><input type=hidden><img><input>", 2),
    ("hr_and_input_in_select", "<body><select><option><hr><input>", 0),
    ("plain_void_elements", "<body><param><source><track>", 3),
    // The newline after `<pre>` and `<listing>` goes the full way (it is dropped).
    ("pre_and_listing", "<body><p><pre>\nx</pre><listing>y</listing>", 5),
    ("void_elements_reconstruct_and_self_close", "<body><p><b>x</p><img><wbr/><area><embed><keygen>", 7),
    // Frameset-ok is still "ok" at `<img>` (the implied body, `<p>`): the
    // void element sets it "not ok", and `<frameset>` is ignored.
    ("void_element_sets_frameset_not_ok", "<p><img><frameset>", 1),
    ("void_elements_in_cell", "<table><tr><td><br><img></td></tr></table>", 5),
    // `<h3>` on the open `h2` pops it; `</h2>` then closes nothing current.
    ("headings", "<body><h1>x</h1><p>y<h2>z<h3>w</h3></h2>", 6),
    // Under an SVG `foreignObject` (not an HTML element) `<h1>` goes the full way; `</h1>` is common,
    // and so is `</foreignObject>` (the current foreign element's, in another case).
    ("heading_in_svg_integration_point", "<body><svg><foreignObject><h1>x</h1></foreignObject>", 2),
    // Foreign end tags that do more than pop the current node: `</g>` with
    // a `path` open pops both; `</p>` breaks out (to "in body", which
    // inserts and closes a `p`); `</br>` too; `</svg>` with the `desc`
    // open pops both.
    ("foreign_end_tags_not_taken", "<body><svg><g><path></g><desc></p></br></svg>", 0),
    ("foreign_end_tags", "<body><math><mi></mi><mo></MO></math><svg><clipPath></clippath></svg>", 5),
    ("frameset_after_body", "<body></body><div>", 0),
    // "In head"'s void elements there, "in head noscript" (scripting is on
    // in these cases: `noscript` is raw text) and "in body"; "after head"
    // puts the head back on the stack first: the full rules.
    ("head_void_elements", "<head><meta charset=utf-8><link rel=a><base href=b><bgsound/><basefont></head>", 5),
    ("head_void_elements_in_body", "<body><link rel=a><meta name=b>", 2),
    ("head_void_elements_after_head", "<head></head><meta><link>", 0),
    // A block's end tag over an implied end (a list's last item left open):
    // `<ul>`, `<li>`, `<li>` (closing the first), `</ul>`; `<dl>`, `<dt>`,
    // `<dd>`, `</dl>`; `<div>`, `<p>`, `</div>`: all eleven.
    ("block_end_over_implied_end", "<body><ul><li>a<li>b</ul><dl><dt>c<dd>d</dl><div><p>e</div>", 11),
    // Not when more than the current node is to pop, or the element is
    // not the one below: `</ul>` over `p` over `li`; `</div>` over an `li`
    // over a `ul`; `</span>` over an `li` (its rule ignores the tag). The
    // eight start tags are taken.
    ("block_end_not_over_one_implied_end", "<body><ul><li><p>a</ul><div><ul><li>b</div><span><li>c</span>", 8),
    // `</select>` over the `option` (`block_end_after_implied`).
    ("after_select", "<body><select><option>x<div>y</div></select>", 3),
];

/// `(name, document, text tokens `Shadow::skip_inert_text` takes)`: text
/// that only inserts its characters ("in body" with frameset-ok "not ok",
/// nothing to reconstruct, no U+0000; "text"), whitespace that the modes
/// before the body insert or ignore, and what it must not take.
const INERT_TEXT_CASES: &[(&str, &str, u64)] = &[
    // A `<body>` start tag sets frameset-ok to "not ok"; an implied body
    // leaves it "ok" until `a` (full rules) sets it.
    ("after_body_start_tag", "<body>a", 1),
    ("after_frameset_ok", "<p>a<p>b", 1),
    ("inside_and_after_formatting", "<p>a<b>x</b>y", 2),
    // `</p>` pops the `b`, which stays in the list: `y` reopens it.
    ("reconstruction_needed", "<p>a<p><b>x</p>y", 1),
    ("rcdata_and_script_text", "<p>a<title>t</title><script>s</script>", 2),
    ("in_cell", "<p>a<table><tr><td>x</td></tr></table>", 1),
    ("html_integration_points", "<body><svg><foreignObject>y</foreignObject><desc>z", 2),
    // Foreign content: characters inserted, frameset-ok already "not ok".
    ("foreign_content", "<body><svg>x<g>y</g>\n</svg><math><mi>z</mi></math>", 4),
    // Whitespace that the modes before the body insert or ignore.
    ("whitespace_before_body", "<html> <head> </head> <body>", 3),
    (
        "whitespace_in_head",
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=utf-8>\n<title>t</title>\n</head>\n<body>",
        7,
    ),
    // What it must not take.
    ("whitespace_after_body", "<body></body> ", 0),
    ("whitespace_in_frameset", "<frameset> </frameset> ", 0),
    ("frameset_ok_still_ok", "<p> <p> ", 0),
    ("nul_in_body", "<body>\0", 0),
    ("table_text", "<body><table>x", 0),
    // `x` sets frameset-ok to "not ok" (an implied body left it "ok").
    ("foreign_content_frameset_ok", "<svg>x", 0),
    ("foreign_content_nul", "<body><svg>\0<g>\0", 0),
    ("newline_after_pre", "<body><pre>\n", 0),
    ("newline_after_textarea", "<body><textarea>\n", 0),
    ("after_body", "<body></body>b", 0),
    ("in_head", "<head>x", 0),
];

/// `(name, document, text tokens `Shadow::skip_inert_text` takes fed whole,
/// fed byte by byte)`: whitespace in a table that the next token, markup,
/// inserts under a table element ("in table text"), and what it must not
/// take. Byte by byte no text token ends before markup (the tokenizer
/// hands text over where a chunk ends, not knowing what follows), so none
/// is taken; the checked path (`check_fast_path`) compares each token it
/// takes with the full rules followed by the end of "in table text".
const TABLE_WHITESPACE_CASES: &[(&str, &str, u64, u64)] = &[
    ("after_table", "<table>\n<tr><td></td></tr></table>", 1, 0),
    ("between_rows", "<table><tr><td></td></tr>\n <tr><td></td></tr></table>", 1, 0),
    ("between_cells", "<table><tr><td></td>\n<td></td></tr></table>", 1, 0),
    ("before_section_end", "<table><tbody><tr><td></td></tr>\r\n</tbody>\t</table>", 2, 0),
    ("before_comment", "<table><tr>\n<!-- c --><td></td></tr></table>", 1, 0),
    ("before_caption", "<table> <caption></caption></table>", 1, 0),
    ("in_thead_and_tfoot", "<table><thead>\n<tr><th></th></tr></thead><tfoot>\n</tfoot></table>", 2, 0),
    // A template's rows: "in table body" with the template the current node.
    ("rows_in_template", "<template><tr></tr>\n<tr></tr></template>", 1, 0),
    // What it must not take (the other inert-text rules take the text of
    // cells, captions, templates, selects and column groups alike, whole
    // and byte by byte).
    ("not_all_whitespace", "<table>\n x<tr><td></td></tr></table>", 0, 0),
    ("character_reference", "<table>&#32;<tr><td></td></tr></table>", 0, 0),
    ("nul", "<table>\n\0<tr><td></td></tr></table>", 0, 0),
    ("at_end_of_input", "<table>\n", 0, 0),
    ("foster_parented_current_node", "<table><div>\n</div></table>", 0, 0),
    ("in_cell", "<table><tr><td>\n<b></b></td></tr></table>", 1, 1),
    ("in_caption", "<table><caption>\n</caption></table>", 1, 1),
    ("in_column_group", "<table><colgroup>\n<col></colgroup></table>", 1, 1),
    ("template_in_table", "<table><template>\n<tr></tr></template></table>", 1, 1),
    ("in_select_in_table", "<table><tr><td><select>\n<option></select></td></tr></table>", 1, 1),
    // Foreign content in a table: its rules, not the table's.
    ("svg_in_table", "<table><svg>\n<g></g></svg></table>", 1, 1),
];

/// Documents where a tag the Standard drops (`</>`, a tag cut by the end of
/// input) follows table whitespace that the inert-text path takes: the
/// Standard's run of table text goes on past the dropped tag (and is
/// foster-parented whole if characters that are not whitespace come), the
/// inert-text path's starts after it. The element events must be the same
/// with and without text events (which turn the inert-text path off),
/// whole and byte by byte.
const TABLE_WHITESPACE_RUNS: &[(&str, &str)] = &[
    ("dropped_end_tag_then_text", "<table>\n</>x<b>y</b><tr><td></td></tr></table>"),
    ("dropped_end_tag_then_whitespace", "<table>\n</>\n<tr><td></td></tr></table>"),
    ("dropped_end_tag_reconstructs", "<p><b>z<table>\n</>x<tr><td></td></tr></table>"),
    ("dropped_end_tag_in_row", "<table><tr>\n</ >\n\tx<td></td></tr></table>"),
    ("tag_cut_by_end_of_input", "<table>\n<tr"),
    ("comment_between", "<table>\n<!-- c -->\n<tr><td></td></tr></table>"),
];

/// `(name, document, comments `Shadow::skip_inert_comment` takes fed
/// whole, fed byte by byte)`: every insertion mode's comment, each checked
/// against the full rules (`check_fast_path`), and the comments it must
/// leave to them.
const INERT_COMMENT_CASES: &[(&str, &str, u64, u64)] = &[
    // Before the dispatcher started: the first token starts it.
    ("initial_first_token", "<!--a-->", 0, 0),
    ("initial_after_doctype", "<!DOCTYPE html><!--a-->", 1, 1),
    ("before_html", "<!DOCTYPE html><!--a--><!--b--><html>", 2, 2),
    ("before_head", "<html><!--a--><head>", 1, 1),
    ("in_head", "<head><!--a--><title>x</title><!--b--></head>", 2, 2),
    ("after_head", "<head></head><!--a--><body>", 1, 1),
    ("in_body", "<body><!--a--><p>x<!--b--></p>", 2, 2),
    ("in_table", "<table><!--a--><tr><!--b--><td><!--c-->", 3, 3),
    ("in_caption", "<table><caption><!--a--></caption></table>", 1, 1),
    ("in_column_group", "<table><colgroup><!--a--><col></colgroup></table>", 1, 1),
    ("in_table_body", "<table><tbody><!--a--></tbody></table>", 1, 1),
    ("in_select", "<select><!--a--><option><!--b--></select>", 2, 2),
    ("in_select_in_table", "<table><tr><td><select><!--a--></select>", 1, 1),
    ("in_template", "<template><!--a--><tr><!--b--></tr></template>", 2, 2),
    ("after_body", "<body></body><!--a-->", 1, 1),
    ("after_after_body", "<body></body></html><!--a-->", 1, 1),
    ("in_frameset", "<frameset><!--a--><frame></frameset><!--b--></html><!--c-->", 3, 3),
    ("foreign_content", "<body><svg><!--a--><g><!--b--></g></svg><math><!--c--></math>", 3, 3),
    ("bogus_comments", "<body><!a></ c>", 2, 2),
    // What it must leave to the full rules: the newline after `<pre>` and
    // `<listing>` is still to be skipped; "in table text" first inserts its
    // pending characters (here foster-parented).
    ("after_pre", "<body><pre><!--a-->\nx</pre>", 0, 0),
    ("after_listing", "<body><listing><!--a--></listing>", 0, 0),
    ("in_table_text", "<table>x<!--a--><tr>", 0, 0),
    ("in_table_text_whitespace_then_characters", "<table> x <!--a--></table>", 0, 0),
    // Table whitespace before it is inert text when markup follows it in
    // the chunk: the comment then comes "in table"; byte by byte the
    // whitespace goes "in table text", and the comment to the full rules.
    ("after_table_whitespace", "<table> <!--a--><tr>", 1, 0),
];

/// A token sink that gives the shadow's comments to
/// `Shadow::skip_inert_comment` first, as the rewriter does.
struct CommentSkips(Shadow);

impl TokenSink for CommentSkips {
    fn token(&mut self, t: &Token<'_>) -> Feedback {
        if self.0.skip_inert_comment(t) {
            return Feedback::default();
        }
        self.0.process_monomorphized(t, &mut NoEvents)
    }

    fn cdata_allowed(&mut self) -> bool {
        self.0.cdata_allowed()
    }
}

/// How many comments `Shadow::skip_inert_comment` took in `html`, fed
/// whole, then byte by byte.
fn comments_taken(html: &str) -> [u64; 2] {
    counted_each(html, inert_comments_taken, |pieces| {
        let mut sink = CommentSkips(Shadow::new(ShadowOptions::default()));
        let mut tokenizer = Tokenizer::new();
        for piece in pieces {
            tokenizer.feed(piece, &mut sink);
        }
        tokenizer.finish(&mut sink);
    })
}

/// `(name, document, start tags `Shadow::fast_start_unlisted` takes)`:
/// names outside the table of known names, which have no rule of their own
/// ("any other start tag"), each checked against the full rules
/// (`check_fast_path`), and the start tags it must leave to them.
const UNLISTED_START_CASES: &[(&str, &str, u64)] = &[
    ("custom_elements", "<body><my-el>x</my-el><emu-xref>y</emu-xref><c->z</c->", 3),
    ("long_names", "<body><emu-clause><emu-normative-optional>x", 2),
    ("upper_case_short_name", "<body><MY-EL>x", 1),
    ("non_ascii_name", "<body><x-é>y", 1),
    // A `select`'s content goes by the rules of "in body" (the Standard
    // has no "in select" mode since customizable `<select>`).
    ("in_select", "<body><select><my-el>x", 1),
    ("reconstructs_formatting", "<body><p><b>x</p><my-el>y", 1),
    ("in_cell", "<table><tr><td><my-el>x", 1),
    // What it must leave to the full rules: known names with rules of their
    // own, short (`<form>`, `<option>`) and long (`<blockquote>` closes
    // the `p`, `<plaintext>` switches the tokenizer), a long name in upper
    // case or with a NUL (not read from its bytes), and every mode but "in
    // body" and "in cell" (foreign content included).
    ("known_short_names", "<body><form>x</form><p>y<option>z", 0),
    ("known_long_names", "<body><p>x<blockquote>y<plaintext>z", 0),
    ("upper_case_long_name", "<body><MY-LONG-ELEMENT>x", 0),
    ("nul_in_name", "<body><x\0y>x", 0),
    ("before_body", "<my-el>x", 0),
    ("in_head", "<head><my-el>x", 0),
    ("in_table", "<table><my-el>x", 0),
    ("foreign_content", "<body><svg><my-el>x", 0),
];

/// A token sink that tries `Shadow::fast_start` and then
/// `Shadow::fast_start_unlisted` on start tags, as the rewriter's quick
/// path does, and counts the start tags the second took.
struct UnlistedStarts(Shadow, u64);

impl TokenSink for UnlistedStarts {
    fn token(&mut self, t: &Token<'_>) -> Feedback {
        if t.kind() == TokenKind::StartTag {
            if let Some(start) = self.0.fast_start(t) {
                return self.0.take_fast_start(t, start, &mut NoEvents);
            }
            if let Some(start) = self.0.fast_start_unlisted(t) {
                self.1 += 1;
                return self.0.take_fast_start_unlisted(t, start, &mut NoEvents);
            }
        }
        self.0.process_monomorphized(t, &mut NoEvents)
    }

    fn cdata_allowed(&mut self) -> bool {
        self.0.cdata_allowed()
    }
}

/// How many start tags `Shadow::fast_start_unlisted` took in `html`, fed
/// whole, then byte by byte.
fn unlisted_starts_taken(html: &str) -> [u64; 2] {
    each_chunking(html, |pieces| {
        let mut sink = UnlistedStarts(Shadow::new(ShadowOptions::default()), 0);
        let mut tokenizer = Tokenizer::new();
        for piece in pieces {
            tokenizer.feed(piece, &mut sink);
        }
        tokenizer.finish(&mut sink);
        sink.1
    })
}

/// An event sink that records the element events, taking text events or not.
struct Elements {
    text_events: bool,
    seen: Vec<String>,
}

impl EventSink for Elements {
    fn event(&mut self, e: Event<'_>) {
        match e {
            Event::ElementOpened { id, name, .. } => self.seen.push(format!("open {name} {id:?}")),
            Event::ElementClosed { id, .. } => self.seen.push(format!("close {id:?}")),
            _ => {}
        }
    }

    fn wants_text_events(&self) -> bool {
        self.text_events
    }
}

/// The element events of `html`, fed whole or byte by byte, with or without text events.
fn element_events(html: &str, bytewise: bool, text_events: bool) -> Vec<String> {
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), Elements { text_events, seen: Vec::new() });
    let mut tokenizer = Tokenizer::new();
    let pieces: Vec<&[u8]> = if bytewise { html.as_bytes().chunks(1).collect() } else { vec![html.as_bytes()] };
    for piece in pieces {
        tokenizer.feed(piece, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.finish();
    sink.into_parts().1.seen
}

/// The HTML element names of the shadow's table (`src/names.rs`), so that
/// every one is tried.
fn table_names() -> Vec<&'static str> {
    let src = include_str!("../../src/names.rs");
    let start = src.find("const HTML: &[&str] = &[").expect("the HTML table");
    let end = start + src[start..].find("];").expect("its end");
    src[start..end].split('"').skip(1).step_by(2).collect()
}

/// Contexts each name is tried in: before, inside (`{}`) and after.
const CONTEXTS: &[(&str, &str, &str)] = &[
    ("body", "<body>", "<{}>x</{}>"),
    ("open_p", "<body><p>", "<{}>x</{}>"),
    ("reconstruct", "<body><b>x<p>y</b>", "<{}>z</{}>"),
    ("nested", "<body><div><span>", "<{}></{}>"),
    ("list_item", "<ul><li>", "<{}>x</{}></li>"),
    ("heading", "<body><h3>", "<{}>x</{}></h3>"),
    ("select", "<body><select>", "<{}>x</{}>"),
    ("button", "<body><button>", "<{}>x</{}>"),
    ("end_only", "<body><div>", "</{}>"),
    ("cell", "<table><tr><td>", "<{}>x</{}>"),
    ("cell_end_only", "<table><tr><td><p>", "</{}>"),
    ("definition", "<dl><dt><b>x", "<{}>y</{}>"),
    ("head", "<head>", "<{}>x</{}>"),
    ("implied_end_below", "<body>", "<{}><li>x</{}>"),
    ("head_noscript", "<head><noscript>", "<{}>x</{}>"),
];

pub(crate) fn trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = CASES
        .iter()
        .map(|&(name, html, expected)| {
            Trial::test(format!("cases::{name}"), move || {
                let n = taken(html, true)?;
                if n != expected {
                    return Err(format!("{html:?}: the fast path took {n} tokens, expected {expected}").into());
                }
                Ok(())
            })
        })
        .collect();
    trials.extend(INERT_TEXT_CASES.iter().map(|&(name, html, expected)| {
        Trial::test(format!("inert_text::{name}"), move || {
            let n = taken_by(html, true, inert_text_taken)?;
            if n != expected {
                return Err(format!("{html:?}: the inert text path took {n} tokens, expected {expected}").into());
            }
            Ok(())
        })
    }));
    trials.extend(INERT_COMMENT_CASES.iter().map(|&(name, html, whole, bytes)| {
        Trial::test(format!("inert_comment::{name}"), move || {
            let n = comments_taken(html);
            if n != [whole, bytes] {
                return Err(format!(
                    "{html:?}: the inert comment path took {n:?} comments (whole, byte by byte), expected {:?}",
                    [whole, bytes]
                )
                .into());
            }
            Ok(())
        })
    }));
    trials.extend(UNLISTED_START_CASES.iter().map(|&(name, html, expected)| {
        Trial::test(format!("unlisted_start::{name}"), move || {
            let n = unlisted_starts_taken(html);
            if n != [expected; 2] {
                return Err(format!(
                    "{html:?}: the unlisted names' path took {n:?} start tags (whole, byte by byte), expected {expected}"
                )
                .into());
            }
            Ok(())
        })
    }));
    trials.extend(TABLE_WHITESPACE_CASES.iter().map(|&(name, html, whole, bytes)| {
        Trial::test(format!("table_whitespace::{name}"), move || {
            let n = taken_each(html, true, inert_text_taken);
            if n != [whole, bytes] {
                return Err(
                    format!("{html:?}: the inert text path took {n:?} tokens, expected {:?}", [whole, bytes]).into()
                );
            }
            Ok(())
        })
    }));
    trials.extend(TABLE_WHITESPACE_RUNS.iter().map(|&(name, html)| {
        Trial::test(format!("table_whitespace_runs::{name}"), move || {
            let full = element_events(html, false, true);
            if full.is_empty() {
                return Err(format!("{html:?}: no element events").into());
            }
            for (bytewise, text_events) in [(false, false), (true, false), (true, true)] {
                let seen = element_events(html, bytewise, text_events);
                if seen != full {
                    return Err(format!(
                        "{html:?} (byte by byte: {bytewise}, text events: {text_events}): {seen:?}, with the full rules {full:?}"
                    )
                    .into());
                }
            }
            let taken = taken_each(html, true, inert_text_taken);
            if taken[0] == 0 {
                return Err(format!("{html:?}: the inert text path took nothing").into());
            }
            Ok(())
        })
    }));
    for name in table_names() {
        for &(context, before, inside) in CONTEXTS {
            for scripting in [true, false] {
                let html = format!("{before}{}", inside.replace("{}", name));
                let label = format!("names::{name}::{context}::scripting_{}", if scripting { "on" } else { "off" });
                trials.push(Trial::test(label, move || taken(&html, scripting).map(drop)));
            }
        }
    }
    trials.push(Trial::test("names::table_is_read", || {
        let n = table_names().len();
        if n < 100 { Err(format!("only {n} names read from src/names.rs").into()) } else { Ok(()) }
    }));
    trials
}
