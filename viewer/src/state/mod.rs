//! The viewer's state: plain structs holding `shared` types, with methods, tested natively.
