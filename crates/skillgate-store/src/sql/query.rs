//! The statements whose SQL is the same for SQLite and PostgreSQL, built with
//! [`QueryBuilder`] so sqlx writes each dialect's placeholders (`?` or `$n`).
//!
//! They only build; each store executes them on its own connection or transaction. Executing
//! a builder inside generic code does not compile: there `IntoArguments` ties the borrow of
//! the builder to its own `'args`, and the builder's drop (of the opaque `DB::Arguments`)
//! then happens while it is still borrowed; with a concrete database the borrow checker
//! knows that drop is harmless. What differs between the dialects (locking, notifications,
//! eviction, migrations, usage triggers) stays in its store.

use super::{state_number, to_i64, COLUMNS, INTERRUPTED_STATES};
use crate::row::{now_ms, ListQuery, StoreLimits, TaskRow};
use sqlx::{Database, Encode, QueryBuilder, Type};
use std::marker::PhantomData;

/// The shared statements for database `DB` (each store names its own as `Stmt`). A type
/// rather than free functions so the bounds (`DB` encodes every type a task row binds) are
/// written once for all of them.
pub(crate) struct Statements<DB>(PhantomData<DB>);

impl<DB> Statements<DB>
where
    DB: Database,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> Option<&'q str>: Encode<'q, DB> + Type<DB>,
    for<'q> i32: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
{
    /// Appends the `WHERE` clause of a ListTasks query: the caller's and anonymous tasks,
    /// then the optional context, state and update-time filters.
    fn push_filter<'a>(qb: &mut QueryBuilder<'a, DB>, q: &'a ListQuery) {
        match &q.caller {
            None => qb.push(" WHERE owner IS NULL"),
            Some(c) => qb
                .push(" WHERE (owner IS NULL OR owner = ")
                .push_bind(c.as_str())
                .push(")"),
        };
        if let Some(c) = &q.context_id {
            qb.push(" AND context_id = ").push_bind(c.as_str());
        }
        if let Some(s) = q.state {
            qb.push(" AND state = ").push_bind(state_number(s));
        }
        if let Some(t) = q.updated_after_ms {
            qb.push(" AND updated_ms > ").push_bind(t);
        }
    }

    /// `SELECT COUNT(*)` of the tasks a ListTasks query matches (in all pages).
    pub(crate) fn count(q: &ListQuery) -> QueryBuilder<'_, DB> {
        let mut qb = QueryBuilder::new("SELECT COUNT(*) FROM tasks");
        Self::push_filter(&mut qb, q);
        qb
    }

    /// The rows of the requested page, newest status first (ties by id), or `None` when the
    /// page is empty anyway (no rows asked for, or it starts beyond the `total` matches).
    pub(crate) fn page(q: &ListQuery, total: i64) -> Option<QueryBuilder<'_, DB>> {
        if q.limit == 0 || to_i64(q.offset) >= total {
            return None;
        }
        let mut qb = QueryBuilder::new(format!("SELECT {COLUMNS} FROM tasks"));
        Self::push_filter(&mut qb, q);
        qb.push(" ORDER BY updated_ms DESC, id ASC LIMIT ")
            .push_bind(i64::from(q.limit))
            .push(" OFFSET ")
            .push_bind(to_i64(q.offset));
        Some(qb)
    }

    /// The task with id `id` (its [`COLUMNS`]).
    pub(crate) fn get(id: &str) -> QueryBuilder<'_, DB> {
        let mut qb = QueryBuilder::new(format!("SELECT {COLUMNS} FROM tasks WHERE id = "));
        qb.push_bind(id);
        qb
    }

    /// Interrupted tasks that have waited since before `cutoff` (ms), oldest first, at most
    /// `limit`: the second half of [`crate::TaskStore::stale`].
    pub(crate) fn interrupted<'a>(cutoff: i64, limit: i64) -> QueryBuilder<'a, DB> {
        let mut qb = QueryBuilder::new(format!(
            "SELECT {COLUMNS} FROM tasks WHERE state IN {INTERRUPTED_STATES} AND updated_ms < "
        ));
        qb.push_bind(cutoff)
            .push(" ORDER BY updated_ms, id LIMIT ")
            .push_bind(limit);
        qb
    }

    /// Inserts every row of `rows` (distinct ids) written by `replica` in one statement,
    /// returning the ids that went in (a taken id is skipped, not an error).
    pub(crate) fn insert_many<'a>(
        rows: &[&'a TaskRow],
        replica: &'a str,
        limits: &StoreLimits,
    ) -> QueryBuilder<'a, DB> {
        let mut qb = QueryBuilder::new(
            "INSERT INTO tasks (id, context_id, owner, state, updated_ms, finished_ms, flags,
                version, size, lease_owner, lease_until_ms, body, shared_at, shared_key) VALUES ",
        );
        for (n, row) in rows.iter().enumerate() {
            let (lease_owner, lease_until) = lease(row, replica, limits);
            qb.push(if n == 0 { "(" } else { ", (" });
            qb.separated(", ")
                .push_bind(row.id.as_str())
                .push_bind(row.context_id.as_str())
                .push_bind(row.owner.as_deref())
                .push_bind(state_number(row.state))
                .push_bind(row.updated_ms)
                .push_bind(row.finished_ms)
                .push_bind(row.flags.bits())
                .push_bind(row.version)
                .push_bind(to_i64(row.size()))
                .push_bind(lease_owner)
                .push_bind(lease_until)
                .push_bind(row.stored_body())
                .push_bind(row.cut().map(|c| to_i64(c.at as u64)))
                .push_bind(row.cut().map(|c| c.shared.fingerprint()));
            qb.push(")");
        }
        qb.push(" ON CONFLICT (id) DO NOTHING RETURNING id");
        qb
    }

    /// Stores each `(fingerprint, text)` of `texts` unless a text of that fingerprint is
    /// already stored (the text a row's body had taken out: see [`TaskRow::cut`]).
    pub(crate) fn keep_shared<'a>(texts: &[(&'a str, &'a str)]) -> QueryBuilder<'a, DB> {
        let mut qb = QueryBuilder::new("INSERT INTO shared_json (key, text) VALUES ");
        for (n, (key, text)) in texts.iter().enumerate() {
            qb.push(if n == 0 { "(" } else { ", (" });
            qb.separated(", ")
                .push_bind(*key)
                .push_bind(text.as_bytes());
            qb.push(")");
        }
        qb.push(" ON CONFLICT (key) DO NOTHING");
        qb
    }

    /// The ids among `ids` that are stored.
    pub(crate) fn present<'a>(ids: &[&'a str]) -> QueryBuilder<'a, DB> {
        let mut qb = QueryBuilder::new("SELECT id FROM tasks WHERE id IN (");
        let mut list = qb.separated(", ");
        for id in ids {
            list.push_bind(*id);
        }
        qb.push(")");
        qb
    }

    /// What a batch's `creates` are checked against, in one statement: rows `(0, id, 0)` for
    /// each of their ids already taken, `(1, owner, n)` for the unfinished tasks each of
    /// their callers holds (a caller with none has no row), and `(2, NULL, bytes held)`.
    /// Each caller is tested by `=` (or `IS NULL`) so the partial index on unfinished
    /// owners applies in both dialects.
    pub(crate) fn create_view<'a>(creates: &[&'a TaskRow]) -> QueryBuilder<'a, DB> {
        let mut qb = QueryBuilder::new(
            "SELECT CAST(0 AS BIGINT), id, CAST(0 AS BIGINT) FROM tasks WHERE id IN (",
        );
        let mut ids = qb.separated(", ");
        for row in creates {
            ids.push_bind(row.id.as_str());
        }
        qb.push(
            ") UNION ALL SELECT CAST(1 AS BIGINT), owner, CAST(COUNT(*) AS BIGINT) FROM tasks
             WHERE finished_ms IS NULL AND (",
        );
        let mut owners: Vec<Option<&str>> = creates.iter().map(|r| r.owner.as_deref()).collect();
        owners.sort_unstable();
        owners.dedup();
        for (n, owner) in owners.into_iter().enumerate() {
            if n > 0 {
                qb.push(" OR ");
            }
            match owner {
                Some(o) => qb.push("owner = ").push_bind(o),
                None => qb.push("owner IS NULL"),
            };
        }
        qb.push(
            ") GROUP BY owner UNION ALL SELECT CAST(2 AS BIGINT), NULL,
             CAST(COALESCE(SUM(used), 0) AS BIGINT) FROM skillgate_usage",
        );
        qb
    }

    /// Replaces each stored task of `rows` (distinct ids) with its `row` written by `replica`
    /// if the stored version is its `expected`, in one statement, returning the ids it
    /// changed; the others met a newer version or no task.
    /// The values travel as one `VALUES` list joined by id (`columnN` are its columns, in
    /// both dialects); each is cast, so a column that is NULL in every row keeps its type.
    pub(crate) fn update_many<'a>(
        rows: &[(&'a TaskRow, i64)],
        replica: &'a str,
        limits: &StoreLimits,
    ) -> QueryBuilder<'a, DB> {
        let mut qb = QueryBuilder::new(
            "UPDATE tasks SET state = u.column3, updated_ms = u.column4, finished_ms = u.column5,
                flags = u.column6, version = u.column7, size = u.column8,
                lease_owner = u.column9, lease_until_ms = u.column10, body = u.column11,
                shared_at = u.column12, shared_key = u.column13
             FROM (VALUES ",
        );
        for (n, (row, expected)) in rows.iter().enumerate() {
            let (lease_owner, lease_until) = lease(row, replica, limits);
            qb.push(if n == 0 { "(" } else { ", (" });
            qb.push("CAST(")
                .push_bind(row.id.as_str())
                .push(" AS TEXT), CAST(")
                .push_bind(*expected)
                .push(" AS BIGINT), CAST(")
                .push_bind(state_number(row.state))
                .push(" AS INTEGER), CAST(")
                .push_bind(row.updated_ms)
                .push(" AS BIGINT), CAST(")
                .push_bind(row.finished_ms)
                .push(" AS BIGINT), CAST(")
                .push_bind(row.flags.bits())
                .push(" AS BIGINT), CAST(")
                .push_bind(row.version)
                .push(" AS BIGINT), CAST(")
                .push_bind(to_i64(row.size()))
                .push(" AS BIGINT), CAST(")
                .push_bind(lease_owner)
                .push(" AS TEXT), CAST(")
                .push_bind(lease_until)
                .push(" AS BIGINT), ")
                .push_bind(row.stored_body())
                .push(", CAST(")
                .push_bind(row.cut().map(|c| to_i64(c.at as u64)))
                .push(" AS BIGINT), CAST(")
                .push_bind(row.cut().map(|c| c.shared.fingerprint()))
                .push(" AS TEXT))");
        }
        qb.push(") AS u WHERE tasks.id = u.column1 AND tasks.version = u.column2 RETURNING id");
        qb
    }
}

/// The lease columns a row is written with: `replica`'s lease while the task runs, none
/// once it waits or has finished.
fn lease<'a>(
    row: &TaskRow,
    replica: &'a str,
    limits: &StoreLimits,
) -> (Option<&'a str>, Option<i64>) {
    if row.is_running() {
        (
            Some(replica),
            Some(now_ms().saturating_add(limits.lease_ms())),
        )
    } else {
        (None, None)
    }
}
