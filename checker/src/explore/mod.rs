//! The explorer: stateless, graph-based, optimal DPOR in the style of TruSt (Kokologiannakis,
//! Marmanis, Gladstein, Vafeiadis, POPL'22) — see [`trust`].
//!
//! Contract: for a model whose consistent executions have an acyclic `po ∪ rf`, every consistent
//! execution graph of the program is produced exactly once (verified in debug mode by hashing every
//! produced graph: [`crate::Options::detect_duplicates`]), and memory stays polynomial in the
//! program size (the recursion holds one graph per level; there is no set of visited states).
//!
//! Not complete yet: executions whose `po ∪ rf` is cyclic (load buffering), which PTX allows for
//! relaxed and weak accesses. HMC (Kokologiannakis & Vafeiadis, ASPLOS'20) explores them by
//! revisiting reads that are only *dependency*-before the revisiting write; that is not implemented.
//! A verdict for such a model carries a caveat saying so.

pub(crate) mod trust;
