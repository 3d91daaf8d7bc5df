//! The raw scanner's state handlers, grouped by spec subsection.
//!
//! Each handler runs one state on `chunk[i..]` and returns the index of the
//! next byte to consume. Handlers consume runs of bytes with `memchr` where
//! the state allows (text, comments, quoted values), and follow the Standard
//! exactly where bytes decide a token boundary. Decoding and most parse
//! errors are left to the token views (`decode/`), which re-run the full
//! spec states over one token's bytes.

mod data;
mod markup;
mod script;
mod tag;
