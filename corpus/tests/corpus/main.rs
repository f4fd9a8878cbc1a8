//! Integration tests of the corpus: one binary, a module per area (STYLE.md, ripgrep's layout).

mod common;
mod damage;
mod durability;
mod export;
mod records;
