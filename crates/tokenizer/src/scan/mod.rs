//! The raw scanner's state handlers, grouped by spec subsection.
