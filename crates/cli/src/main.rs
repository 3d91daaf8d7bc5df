//! The `htrewrite` command.
fn main() {}
