//! The coordinator in-process, on loopback, spoken to with the raw protocol: validation and status
//! codes, leases, expiry, exactly-once recording, blame, restart.

mod common;
mod leases;
mod legacy;
mod refused;
mod requests;
mod seed_pool;
