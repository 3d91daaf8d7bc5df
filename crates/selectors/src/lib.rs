//! CSS selectors matched on the shadow's stack (work in progress, issue 4).
#![forbid(unsafe_code)]
