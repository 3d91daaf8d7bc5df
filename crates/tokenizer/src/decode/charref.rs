//! PLACEHOLDER — to be implemented (helper H1a).
