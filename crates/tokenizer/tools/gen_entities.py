#!/usr/bin/env python3
"""Generates crates/tokenizer/src/decode/entities.rs, the HTML Standard's table of
named character references, from html5lib's tokenizer/namedEntities.test.

Usage (from the repository root):

    python3 crates/tokenizer/tools/gen_entities.py \
        tests/data/html5lib-tests/tokenizer/namedEntities.test \
        crates/tokenizer/src/decode/entities.rs

namedEntities.test has, for every name of the Standard's table
(https://html.spec.whatwg.org/multipage/named-characters.html), a case
described "Named entity: NAME; with a semi-colon" or, for the legacy names
that may appear without a semicolon, "Named entity: NAME without a
semi-colon"; the case's input is "&" followed by the name and its output is
the name's value. Cases described "Bad named entity: ..." are not names.

The output is deterministic: names sorted bytewise, every value written as
\\u{...} escapes, so the file depends on the input data only.
"""

import json
import sys

EXPECTED_COUNT = 2231


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: gen_entities.py NAMED_ENTITIES_TEST OUTPUT_RS")
    source, target = argv[1], argv[2]
    with open(source, encoding="utf-8") as f:
        tests = json.load(f)["tests"]

    table = {}
    for case in tests:
        description = case["description"]
        if not description.startswith("Named entity: "):
            if not description.startswith("Bad named entity: "):
                sys.exit("unexpected description: %r" % description)
            continue
        source_input = case["input"]
        if not source_input.startswith("&"):
            sys.exit("input does not start with '&': %r" % source_input)
        name = source_input[1:]
        if not name or not all(c.isascii() and (c.isalnum() or c == ";") for c in name):
            sys.exit("unexpected name: %r" % name)
        if ";" in name[:-1]:
            sys.exit("';' inside a name: %r" % name)
        output = case["output"]
        if len(output) != 1 or output[0][0] != "Character":
            sys.exit("unexpected output for %r: %r" % (name, output))
        value = output[0][1]
        if not 1 <= len(value) <= 2:
            sys.exit("value of %r is not one or two code points: %r" % (name, value))
        if name in table and table[name] != value:
            sys.exit("two values for %r" % name)
        table[name] = value

    if len(table) != EXPECTED_COUNT:
        sys.exit("found %d names, expected %d" % (len(table), EXPECTED_COUNT))
    # Every legacy name (no ';') has a ';' twin with the same value.
    for name, value in table.items():
        if not name.endswith(";") and table.get(name + ";") != value:
            sys.exit("legacy name %r has no matching %r" % (name, name + ";"))

    names = sorted(table, key=lambda n: n.encode("ascii"))
    lines = [
        "//! The HTML Standard's [named character references]"
        "(https://html.spec.whatwg.org/multipage/named-characters.html).",
        "//!",
        "//! GENERATED FILE — do not edit. Regenerate from the repository root with:",
        "//!",
        "//! ```text",
        "//! python3 crates/tokenizer/tools/gen_entities.py \\",
        "//!     tests/data/html5lib-tests/tokenizer/namedEntities.test \\",
        "//!     crates/tokenizer/src/decode/entities.rs",
        "//! ```",
        "//!",
        "//! %d names (%d legacy names without `;`), sorted bytewise, so every name"
        % (len(names), sum(1 for n in names if not n.endswith(";"))),
        "//! that extends a prefix lies in one contiguous range of the table.",
        "",
        "/// One named character reference: the name as written after `&`",
        "/// (including its `;`, if any) and the one or two code points it stands for.",
        "#[derive(Debug, Clone, Copy, PartialEq, Eq)]",
        "pub(crate) struct NamedReference {",
        "    /// The name without the leading `&`.",
        "    pub(crate) name: &'static [u8],",
        "    /// The replacement text.",
        "    pub(crate) value: &'static str,",
        "}",
        "",
        "/// Every named character reference of the Standard, sorted bytewise by name.",
        "#[rustfmt::skip]",
        "pub(crate) static NAMED_REFERENCES: [NamedReference; %d] = [" % len(names),
    ]
    for name in names:
        escaped = "".join("\\u{%X}" % ord(c) for c in table[name])
        lines.append('    NamedReference { name: b"%s", value: "%s" },' % (name, escaped))
    lines.append("];")
    with open(target, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv)
