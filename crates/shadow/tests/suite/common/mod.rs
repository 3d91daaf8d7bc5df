//! Shared pieces of the shadow's proof harness (issue 3): the `.dat` reader, the chunkings, the
//! driver, the test-only DOM rebuilt from events, and the expected-differences list.
#![allow(dead_code)]

pub mod chunks;
pub mod dat;
pub mod dom;
pub mod drive;
pub mod expected;
pub mod tree;
pub mod undump;
