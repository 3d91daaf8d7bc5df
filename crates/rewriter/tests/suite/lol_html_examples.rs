//! lol_html's documented examples (its README and the docs.rs examples of
//! lol_html 3: `HtmlRewriter`, `rewrite_str`, the handler macros,
//! `Element::on_end_tag` and `end_tag_handlers`), ported to htrewrite (issue
//! 21). Each example runs through **both** rewriters — fed as lol_html's
//! example feeds it, whole, and split at every byte — and the outputs must be
//! equal, except for the intentional differences listed with their reason
//! (see `docs/migrating-from-lol-html.md`); for those, htrewrite's output is
//! the one the difference describes, and lol_html's must still be what its
//! own documentation says. One named test per example. Three more cases
//! (source "migration guide") show the intentional differences the guide
//! names, with lol_html's behaviour as its documentation states it.

use std::cell::RefCell;
use std::error::Error;
use std::rc::Rc;

use libtest_mimic::{Failed, Trial};

type Run = fn(&[&[u8]]) -> Result<String, Box<dyn Error>>;

/// One documented example.
struct Example {
    name: &'static str,
    /// Where lol_html documents it.
    source: &'static str,
    /// The input, in the chunks the example feeds.
    chunks: &'static [&'static str],
    /// What lol_html writes: what its documentation asserts (for the
    /// guide's cases, what its documented behaviour gives).
    documented: &'static str,
    lol: Run,
    ours: Run,
    /// `None` when the outputs must be equal.
    differs: Option<Difference>,
}

/// An intentional difference: why, and what htrewrite writes instead.
struct Difference {
    reason: &'static str,
    ours: &'static str,
}

/// Feeds `chunks` to a lol_html rewriter.
fn lol(settings: lol_html::Settings<'_, '_>, chunks: &[&[u8]]) -> Result<String, Box<dyn Error>> {
    let mut out = Vec::new();
    let mut rw = lol_html::HtmlRewriter::new(settings, |c: &[u8]| out.extend_from_slice(c));
    for chunk in chunks {
        rw.write(chunk)?;
    }
    rw.end()?;
    Ok(String::from_utf8(out)?)
}

/// Feeds `chunks` to an htrewrite rewriter.
fn ours(settings: htrewrite::Settings<'_>, chunks: &[&[u8]]) -> Result<String, Box<dyn Error>> {
    let mut rw = htrewrite::Rewriter::new(settings, htrewrite::IoSink(Vec::new()))?;
    for chunk in chunks {
        rw.write(chunk)?;
    }
    Ok(String::from_utf8(rw.end()?.0)?)
}

/// lol_html with one element handler appending `content` to every `selector` match.
fn lol_append(
    selector: &str,
    content: &str,
    ty: lol_html::html_content::ContentType,
    chunks: &[&[u8]],
) -> Result<String, Box<dyn Error>> {
    let s = lol_html::Settings::new().append_element_content_handler(lol_html::element!(selector, |el| {
        el.append(content, ty);
        Ok(())
    }));
    lol(s, chunks)
}

/// htrewrite with one element handler appending `content` to every `selector` match.
fn ours_append(
    selector: &str,
    content: &str,
    ty: htrewrite::ContentType,
    chunks: &[&[u8]],
) -> Result<String, Box<dyn Error>> {
    let s = htrewrite::Settings::new().element(selector, |el| {
        el.append(content, ty)?;
        Ok(())
    });
    ours(s, chunks)
}

/// lol_html's README handler: `http:` links become `https:`.
fn lol_https(chunks: &[&[u8]]) -> Result<String, Box<dyn Error>> {
    let s = lol_html::Settings::new().append_element_content_handler(lol_html::element!("a[href]", |el| {
        let href = el.get_attribute("href").expect("href was required").replace("http:", "https:");
        el.set_attribute("href", &href)?;
        Ok(())
    }));
    lol(s, chunks)
}

/// The same handler for htrewrite, through the `element!` macro.
fn ours_https(chunks: &[&[u8]]) -> Result<String, Box<dyn Error>> {
    let s = htrewrite::Settings::new().handler(htrewrite::element!("a[href]", |el| {
        let href = el.get_attribute("href").expect("href was required").replace("http:", "https:");
        el.set_attribute("href", &href)?;
        Ok(())
    }));
    ours(s, chunks)
}

fn examples() -> Vec<Example> {
    use htrewrite::ContentType as Ct;
    use lol_html::html_content::{ContentType as LolCt, Element as LolElement};
    vec![
        Example {
            name: "readme_https_links",
            source: "README.md; HtmlRewriter",
            chunks: &["<div><a href=", "http://example.com>", "</a></div>"],
            documented: r#"<div><a href="https://example.com"></a></div>"#,
            lol: lol_https,
            ours: ours_https,
            differs: Some(Difference {
                reason: "an attribute edit changes only the value's bytes: the unquoted value stays unquoted \
                         (it needs no quotes); lol_html writes the start tag anew, the edited value quoted",
                ours: "<div><a href=https://example.com></a></div>",
            }),
        },
        Example {
            name: "rewrite_str_https_links",
            source: "rewrite_str",
            chunks: &[r#"<div><a href="http://example.com"></a></div>"#],
            documented: r#"<div><a href="https://example.com"></a></div>"#,
            lol: lol_https,
            ours: ours_https,
            differs: None,
        },
        Example {
            name: "element_set_inner_content",
            source: "element!",
            chunks: &[r#"<span id="foo"></span>"#],
            documented: r#"<span id="foo">Hello!</span>"#,
            lol: |c| {
                let s = lol_html::Settings::new().append_element_content_handler(lol_html::element!("#foo", |el| {
                    el.set_inner_content("Hello!", LolCt::Text);
                    Ok(())
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().handler(htrewrite::element!("#foo", |el| {
                    el.set_inner_content("Hello!", Ct::Text)?;
                    Ok(())
                }));
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "text_after_last_chunk",
            source: "text!",
            chunks: &["<span>Hello</span>"],
            documented: "<span>Hello world</span>",
            lol: |c| {
                let s = lol_html::Settings::new().append_element_content_handler(lol_html::text!("span", |t| {
                    if t.last_in_text_node() {
                        t.after(" world", LolCt::Text);
                    }
                    Ok(())
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().handler(htrewrite::text!("span", |t| {
                    if t.last_in_text_node() {
                        t.after(" world", Ct::Text)?;
                    }
                    Ok(())
                }));
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "comments_set_text",
            source: "comments!",
            chunks: &["<span><!-- 42 --></span>"],
            documented: "<span><!--Hello!--></span>",
            lol: |c| {
                let s = lol_html::Settings::new().append_element_content_handler(lol_html::comments!("span", |c| {
                    c.set_text("Hello!")?;
                    Ok(())
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().handler(htrewrite::comments!("span", |c| {
                    c.set_text("Hello!")?;
                    Ok(())
                }));
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "doctype_name",
            source: "doctype!",
            chunks: &["<!doctype html>"],
            documented: "<!doctype html>",
            lol: |c| {
                let s = lol_html::Settings::new().append_document_content_handler(lol_html::doctype!(|d| {
                    if d.name().as_deref() != Some("html") {
                        return Err(format!("name {:?}", d.name()).into());
                    }
                    Ok(())
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().handler(htrewrite::doctype!(|d| {
                    if d.name() != Some("html") {
                        return Err(format!("name {:?}", d.name()).into());
                    }
                    Ok(())
                }));
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "doc_text_after_each_node",
            source: "doc_text!",
            chunks: &["Hello<span>Hello</span>Hello"],
            documented: "Hello world<span>Hello world</span>Hello world",
            lol: |c| {
                let s = lol_html::Settings::new().append_document_content_handler(lol_html::doc_text!(|t| {
                    if t.last_in_text_node() {
                        t.after(" world", LolCt::Text);
                    }
                    Ok(())
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().handler(htrewrite::doc_text!(|t| {
                    if t.last_in_text_node() {
                        t.after(" world", Ct::Text)?;
                    }
                    Ok(())
                }));
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "doc_comments_set_text",
            source: "doc_comments!",
            chunks: &["<!-- 42 --><span><!-- 42 --></span><!-- 42 -->"],
            documented: "<!--Hello!--><span><!--Hello!--></span><!--Hello!-->",
            lol: |c| {
                let s = lol_html::Settings::new().append_document_content_handler(lol_html::doc_comments!(|c| {
                    c.set_text("Hello!")?;
                    Ok(())
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().handler(htrewrite::doc_comments!(|c| {
                    c.set_text("Hello!")?;
                    Ok(())
                }));
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "end_append",
            source: "end!",
            chunks: &["<span>foo</span>"],
            documented: "<span>foobar</span><div>baz</div>",
            lol: |c| {
                let s = lol_html::Settings::new()
                    .append_element_content_handler(lol_html::element!("span", |el| {
                        el.append("bar", LolCt::Text);
                        Ok(())
                    }))
                    .append_document_content_handler(lol_html::end!(|end| {
                        end.append("<div>baz</div>", LolCt::Html);
                        Ok(())
                    }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new()
                    .handler(htrewrite::element!("span", |el| {
                        el.append("bar", Ct::Text)?;
                        Ok(())
                    }))
                    .handler(htrewrite::end!(|end| {
                        end.append("<div>baz</div>", Ct::Html)?;
                        Ok(())
                    }));
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "bail_out_handler_not_called",
            source: "bail_out!",
            chunks: &["<span>foo</span>"],
            documented: "<span>foo</span>",
            lol: |c| {
                let called = Rc::new(RefCell::new(false));
                let flag = called.clone();
                let s = lol_html::Settings::new()
                    .with_graceful_bail_out_on_content_handler_error(true)
                    .append_bail_out_handler(lol_html::bail_out!(move |_err, _bail_out| *flag.borrow_mut() = true));
                let out = lol(s, c)?;
                if *called.borrow() { Err("the bail-out handler ran".into()) } else { Ok(out) }
            },
            ours: |c| {
                let called = Rc::new(RefCell::new(false));
                let flag = called.clone();
                let s = htrewrite::Settings::new()
                    .on_error(htrewrite::OnError::PassThrough)
                    .on_bail_out(move |_err| *flag.borrow_mut() = true);
                let out = ours(s, c)?;
                if *called.borrow() { Err("the bail-out hook ran".into()) } else { Ok(out) }
            },
            differs: None,
        },
        Example {
            name: "on_end_tag_before_after",
            source: "Element::on_end_tag",
            chunks: &["<span>hi</span>"],
            documented: "<span>hi?</span>!",
            lol: |c| {
                let s = lol_html::Settings::new().append_element_content_handler(lol_html::element!("span", |el| {
                    el.on_end_tag(lol_html::end_tag!(move |end| {
                        end.before("?", LolCt::Text);
                        end.after("!", LolCt::Text);
                        Ok(())
                    }))
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().element("span", |el| {
                    el.on_end(|end| {
                        end.before("?", Ct::Text)?;
                        end.after("!", Ct::Text)?;
                        Ok(())
                    });
                    Ok(())
                });
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "end_tag_handlers_truncate",
            source: "Element::end_tag_handlers",
            chunks: &["<span>Short</span><span><b>13</b> characters</span>"],
            documented: "<span>Short</SPAN><span><b>13</b> characters!</span>",
            lol: |c| {
                let buffer = Rc::new(RefCell::new(String::new()));
                let text = buffer.clone();
                let s = lol_html::Settings::new()
                    .append_element_content_handler(lol_html::element!("span", move |el: &mut LolElement<'_, '_>| {
                        buffer.borrow_mut().clear();
                        let buffer = buffer.clone();
                        if let Some(handlers) = el.end_tag_handlers() {
                            handlers.push(Box::new(move |end| {
                                if buffer.borrow().len() == 13 {
                                    end.before("!", LolCt::Text);
                                } else {
                                    end.remove();
                                    let name = end.name().to_uppercase();
                                    end.after(&format!("</{name}>"), LolCt::Html);
                                }
                                Ok(())
                            }));
                        }
                        Ok(())
                    }))
                    .append_element_content_handler(lol_html::text!("span", move |t| {
                        text.borrow_mut().push_str(t.as_str());
                        Ok(())
                    }));
                lol(s, c)
            },
            ours: |c| {
                let buffer = Rc::new(RefCell::new(String::new()));
                let text = buffer.clone();
                let s = htrewrite::Settings::new()
                    .element("span", move |el| {
                        buffer.borrow_mut().clear();
                        let buffer = buffer.clone();
                        el.on_end(move |end| {
                            if buffer.borrow().len() == 13 {
                                end.before("!", Ct::Text)?;
                            } else {
                                end.remove_end_tag();
                                let name = end.tag_name().to_uppercase();
                                end.after(&format!("</{name}>"), Ct::Html)?;
                            }
                            Ok(())
                        });
                        Ok(())
                    })
                    .text("span", move |t| {
                        text.borrow_mut().push_str(t.as_str());
                        Ok(())
                    });
                ours(s, c)
            },
            differs: None,
        },
        Example {
            name: "end_handler_on_implied_end",
            source: "migration guide; Element::on_end_tag: runs at end tags only",
            chunks: &["<ul><li>a<li>b</ul>"],
            // Both handlers run at `</ul>`, the first end tag.
            documented: "<ul><li>a<li>b!!</ul>",
            lol: |c| {
                let s = lol_html::Settings::new().append_element_content_handler(lol_html::element!("li", |el| {
                    el.on_end_tag(lol_html::end_tag!(|end| {
                        end.before("!", LolCt::Text);
                        Ok(())
                    }))
                }));
                lol(s, c)
            },
            ours: |c| {
                let s = htrewrite::Settings::new().handler(htrewrite::end_tag!("li", |end| {
                    end.before("!", Ct::Text)?;
                    Ok(())
                }));
                ours(s, c)
            },
            differs: Some(Difference {
                reason: "end handlers run where each element ends in the Standard's tree, implied ends \
                         included: the first li ends before the second, the second before </ul>; \
                         lol_html runs both at </ul>, the next end tag",
                ours: "<ul><li>a!<li>b!</ul>",
            }),
        },
        Example {
            name: "text_in_script_is_not_entity_escaped",
            source: "migration guide; ContentType::Text: HTML-escaped wherever it lands",
            chunks: &["<script>x()</script>"],
            documented: "<script>x()if (a &lt; b) {}</script>",
            lol: |c| lol_append("script", "if (a < b) {}", LolCt::Text, c),
            ours: |c| ours_append("script", "if (a < b) {}", Ct::Text, c),
            differs: Some(Difference {
                reason: "text is escaped for the context it lands in: script data has no character \
                         references, so it goes as it is (and text that would end the script is refused)",
                ours: "<script>x()if (a < b) {}</script>",
            }),
        },
        Example {
            name: "implied_body_is_matched",
            source: "migration guide; lol_html sees only elements with a start tag",
            chunks: &["<title>t</title><p>x"],
            documented: "<title>t</title><p>x",
            lol: |c| lol_append("body", "<footer>f</footer>", LolCt::Html, c),
            ours: |c| ours_append("body", "<footer>f</footer>", Ct::Html, c),
            differs: Some(Difference {
                reason: "selectors match the elements a browser builds: the body the parser implies \
                         before <p> is matched, and ends at the end of input",
                ours: "<title>t</title><p>x<footer>f</footer>",
            }),
        },
    ]
}

/// Runs one example in its documented chunks, whole, and split at every byte.
fn check(example: &Example) -> Result<(), Failed> {
    let input: String = example.chunks.concat();
    let chunkings: [(&str, Vec<&[u8]>); 3] = [
        ("as documented", example.chunks.iter().map(|c| c.as_bytes()).collect()),
        ("whole", vec![input.as_bytes()]),
        ("split at every byte", input.as_bytes().chunks(1).collect()),
    ];
    let mut failures = Vec::new();
    for (how, chunks) in &chunkings {
        let theirs = (example.lol)(chunks).map_err(|e| format!("[{how}] lol_html failed: {e}"))?;
        let mine = (example.ours)(chunks).map_err(|e| format!("[{how}] htrewrite failed: {e}"))?;
        if theirs != example.documented {
            failures.push(format!("[{how}] lol_html wrote {theirs:?}, its docs say {:?}", example.documented));
        }
        match &example.differs {
            None if mine != theirs => failures.push(format!("[{how}] htrewrite wrote {mine:?}, lol_html {theirs:?}")),
            Some(d) if mine != d.ours || mine == theirs => failures.push(format!(
                "[{how}] htrewrite wrote {mine:?}; the listed difference ({}) says {:?}, lol_html wrote {theirs:?}",
                d.reason, d.ours
            )),
            _ => {}
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} ({}):\n{}", example.name, example.source, failures.join("\n")).into())
    }
}

pub(crate) fn trials() -> Vec<Trial> {
    examples()
        .into_iter()
        .map(|example| {
            let kind = if example.differs.is_some() { "differs" } else { "same" };
            Trial::test(format!("{kind}::{}", example.name), move || check(&example))
        })
        .collect()
}
