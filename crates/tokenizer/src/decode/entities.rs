//! PLACEHOLDER — to be generated (helper H1a).
