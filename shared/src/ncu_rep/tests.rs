//! Unit tests of the report reader.
