//! Integration tests of the task stores against real databases: one conformance suite run on
//! the memory store, SQLite (in a scratch directory) and PostgreSQL (a scratch database per
//! test at `SKILLGATE_TEST_PG`, default `postgres://postgres@127.0.0.1:5432/postgres`; set it
//! to `skip` to skip the PostgreSQL tests, which otherwise fail when the server is unreachable),
//! plus what only a SQL store can show: durability, locking, schema versions, cross-replica
//! events and leases. `bench` holds `#[ignore]`d measurements.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod bench;
mod common;
mod conformance;
mod crash;
mod group;
mod postgres;
mod shared;
mod sqlite;
