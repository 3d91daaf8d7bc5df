//! Script data escape states
//! ([§13.2.5.15–31](https://html.spec.whatwg.org/multipage/parsing.html#script-data-less-than-sign-state)):
//! `<!--` inside a script, and `<script>` nested in that, decide which
//! `</script>` ends the element.

use crate::tokenizer::is_space;
use crate::{State, Tokenizer};

const SCRIPT: &[u8] = b"script";

impl Tokenizer {
    /// [Script data less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-less-than-sign-state).
    pub(crate) fn script_data_less_than_sign(&mut self, chunk: &[u8], i: usize) -> usize {
        match chunk[i] {
            b'/' => {
                self.temp_len = 0;
                self.temp_match = true;
                self.state = State::ScriptDataEndTagOpen;
                i + 1
            }
            b'!' => {
                self.state = State::ScriptDataEscapeStart;
                i + 1
            }
            _ => {
                self.state = State::ScriptData;
                i
            }
        }
    }

    /// [Script data escape start state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escape-start-state).
    pub(crate) fn script_data_escape_start(&mut self, chunk: &[u8], i: usize) -> usize {
        if chunk[i] == b'-' {
            self.state = State::ScriptDataEscapeStartDash;
            i + 1
        } else {
            self.state = State::ScriptData;
            i
        }
    }

    /// [Script data escape start dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escape-start-dash-state).
    pub(crate) fn script_data_escape_start_dash(&mut self, chunk: &[u8], i: usize) -> usize {
        if chunk[i] == b'-' {
            self.state = State::ScriptDataEscapedDashDash;
            i + 1
        } else {
            self.state = State::ScriptData;
            i
        }
    }

    /// [Script data escaped state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-state).
    pub(crate) fn script_data_escaped(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        match memchr::memchr2(b'-', b'<', &chunk[i..]) {
            Some(k) => self.script_data_escaped_special(chunk, base, i + k, State::ScriptDataEscapedDash),
            None => chunk.len(),
        }
    }

    /// `-` or `<` in an escaped state: `-` goes to `dash`, `<` to the escaped
    /// less-than sign state.
    fn script_data_escaped_special(&mut self, chunk: &[u8], base: u64, j: usize, dash: State) -> usize {
        if chunk[j] == b'-' {
            self.state = dash;
        } else {
            self.markup_start = base + j as u64;
            self.state = State::ScriptDataEscapedLessThanSign;
        }
        j + 1
    }

    /// [Script data escaped dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-dash-state).
    pub(crate) fn script_data_escaped_dash(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        match chunk[i] {
            b'-' | b'<' => self.script_data_escaped_special(chunk, base, i, State::ScriptDataEscapedDashDash),
            _ => {
                self.state = State::ScriptDataEscaped;
                i + 1
            }
        }
    }

    /// [Script data escaped dash dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-dash-dash-state).
    pub(crate) fn script_data_escaped_dash_dash(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        match chunk[i] {
            b'-' => i + 1,
            b'<' => self.script_data_escaped_special(chunk, base, i, State::ScriptDataEscapedDashDash),
            b'>' => {
                self.state = State::ScriptData;
                i + 1
            }
            _ => {
                self.state = State::ScriptDataEscaped;
                i + 1
            }
        }
    }

    /// [Script data escaped less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-escaped-less-than-sign-state).
    pub(crate) fn script_data_escaped_less_than_sign(&mut self, chunk: &[u8], i: usize) -> usize {
        match chunk[i] {
            b'/' => {
                self.temp_len = 0;
                self.temp_match = true;
                self.state = State::ScriptDataEscapedEndTagOpen;
                i + 1
            }
            b if b.is_ascii_alphabetic() => {
                self.temp_len = 0;
                self.temp_match = true;
                self.state = State::ScriptDataDoubleEscapeStart;
                i
            }
            _ => {
                self.state = State::ScriptDataEscaped;
                i
            }
        }
    }

    /// [Script data double escape start state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escape-start-state).
    pub(crate) fn script_data_double_escape_start(&mut self, chunk: &[u8], i: usize) -> usize {
        self.match_script_word(chunk, i, State::ScriptDataDoubleEscaped, State::ScriptDataEscaped)
    }

    /// [Script data double escape end state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escape-end-state).
    pub(crate) fn script_data_double_escape_end(&mut self, chunk: &[u8], i: usize) -> usize {
        self.match_script_word(chunk, i, State::ScriptDataEscaped, State::ScriptDataDoubleEscaped)
    }

    /// The shared body of the double escape start and end states: letters
    /// are compared with `script`; whitespace, `/` or `>` then switches to
    /// `on_match` (or `otherwise`), anything else reconsumes in `otherwise`.
    fn match_script_word(&mut self, chunk: &[u8], i: usize, on_match: State, otherwise: State) -> usize {
        let mut j = i;
        while j < chunk.len() {
            let b = chunk[j];
            if b.is_ascii_alphabetic() {
                if SCRIPT.get(self.temp_len) != Some(&b.to_ascii_lowercase()) {
                    self.temp_match = false;
                }
                self.temp_len += 1;
                j += 1;
                continue;
            }
            if is_space(b) || b == b'/' || b == b'>' {
                let is_script = self.temp_match && self.temp_len == SCRIPT.len();
                self.state = if is_script { on_match } else { otherwise };
                return j + 1;
            }
            self.state = otherwise;
            return j;
        }
        j
    }

    /// [Script data double escaped state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-state).
    pub(crate) fn script_data_double_escaped(&mut self, chunk: &[u8], i: usize) -> usize {
        match memchr::memchr2(b'-', b'<', &chunk[i..]) {
            Some(k) => {
                let j = i + k;
                self.state = if chunk[j] == b'-' {
                    State::ScriptDataDoubleEscapedDash
                } else {
                    State::ScriptDataDoubleEscapedLessThanSign
                };
                j + 1
            }
            None => chunk.len(),
        }
    }

    /// [Script data double escaped dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-dash-state).
    pub(crate) fn script_data_double_escaped_dash(&mut self, chunk: &[u8], i: usize) -> usize {
        self.state = match chunk[i] {
            b'-' => State::ScriptDataDoubleEscapedDashDash,
            b'<' => State::ScriptDataDoubleEscapedLessThanSign,
            _ => State::ScriptDataDoubleEscaped,
        };
        i + 1
    }

    /// [Script data double escaped dash dash state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-dash-dash-state).
    pub(crate) fn script_data_double_escaped_dash_dash(&mut self, chunk: &[u8], i: usize) -> usize {
        self.state = match chunk[i] {
            b'-' => State::ScriptDataDoubleEscapedDashDash,
            b'<' => State::ScriptDataDoubleEscapedLessThanSign,
            b'>' => State::ScriptData,
            _ => State::ScriptDataDoubleEscaped,
        };
        i + 1
    }

    /// [Script data double escaped less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-double-escaped-less-than-sign-state).
    pub(crate) fn script_data_double_escaped_less_than_sign(&mut self, chunk: &[u8], i: usize) -> usize {
        if chunk[i] == b'/' {
            self.temp_len = 0;
            self.temp_match = true;
            self.state = State::ScriptDataDoubleEscapeEnd;
            i + 1
        } else {
            self.state = State::ScriptDataDoubleEscaped;
            i
        }
    }
}
