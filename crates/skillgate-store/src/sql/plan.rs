//! How a SQL store's writer applies a batch, whatever the dialect: the batch's updates in
//! one statement (a task's second update in the batch after it, on its own), then its
//! creates checked in batch order against one read and inserted in one statement. What each
//! store adds is only the executing of the statements ([`super::query`]) on its connection.
//!
//! Updates go first, then creates: the writes of one batch come from callers that did not
//! wait for each other, so any order is one they could have had; a task's update never shares
//! a batch with its create (its caller waited for the create's commit).

use crate::group::Write;
use crate::row::{StoreLimits, TaskRow};
use crate::sql::to_i64;
use crate::{expected_version, StoreError};
use std::collections::{HashMap, HashSet};

/// Batch statements of at most this many rows are kept prepared (sqlx's per-connection
/// statement cache); larger ones are prepared for one use. Preparing a batch statement costs
/// more than executing it for a few rows (measured: a one-write batch on SQLite cost about
/// 200,000 more instructions prepared each time), while a large batch spreads it over its rows;
/// and the cache holds only the few texts small batches make (their text differs with the
/// number of rows), within its capacity.
const CACHED_ROWS: usize = 8;

/// Whether a batch statement over `rows` rows is kept prepared (see [`CACHED_ROWS`]).
pub(crate) fn keep_prepared(rows: usize) -> bool {
    rows <= CACHED_ROWS
}

/// One update of a batch: its position, its row and the version it expects.
pub(crate) type Update<'a> = (usize, &'a TaskRow, i64);

/// A batch split the way the writers apply it.
#[derive(Debug, Default)]
pub(crate) struct Plan<'a> {
    /// Updates of distinct tasks, in batch order: one statement.
    pub(crate) updates: Vec<Update<'a>>,
    /// Later updates of a task already in `updates` (two writers racing), applied one by one
    /// afterwards so the first in batch order wins, as it would alone.
    pub(crate) again: Vec<Update<'a>>,
    /// Creates with their positions, in batch order.
    pub(crate) creates: Vec<(usize, &'a TaskRow)>,
}

impl<'a> Plan<'a> {
    /// Splits `batch`.
    pub(crate) fn of(batch: &[&'a Write]) -> Self {
        let mut plan = Plan::default();
        let mut seen: HashSet<&str> = HashSet::new();
        for (i, w) in batch.iter().enumerate() {
            match w {
                Write::Update(row, events) => {
                    let u = (i, row, expected_version(row, events.len()));
                    if seen.insert(&row.id) {
                        plan.updates.push(u);
                    } else {
                        plan.again.push(u);
                    }
                }
                Write::Create(row) => plan.creates.push((i, row)),
            }
        }
        plan
    }
}

/// What creates are checked against (see [`super::query::Statements::create_view`]).
#[derive(Debug, Default)]
pub(crate) struct CreateView {
    taken: HashSet<String>,
    held: HashMap<Option<String>, usize>,
    used: i64,
}

impl CreateView {
    /// Reads the rows of the view statement.
    pub(crate) fn from_rows(rows: Vec<(i64, Option<String>, i64)>) -> Self {
        let mut view = CreateView::default();
        for (kind, key, n) in rows {
            match (kind, key) {
                (0, Some(id)) => {
                    view.taken.insert(id);
                }
                (1, owner) => {
                    view.held
                        .insert(owner, usize::try_from(n).unwrap_or(usize::MAX));
                }
                _ => view.used = n,
            }
        }
        view
    }

    /// Decides `row` as a create alone would be, in the stores' order: a taken id, then the
    /// caller's limit, then the byte budget. `Ok(true)`: admitted, and counted in the view so
    /// the next create sees it; `Ok(false)`: it only fits once finished tasks are evicted.
    pub(crate) fn admit(
        &mut self,
        row: &TaskRow,
        limits: &StoreLimits,
    ) -> Result<bool, StoreError> {
        if self.taken.contains(&row.id) {
            return Err(StoreError::Conflict(row.id.clone()));
        }
        let held = self.held.entry(row.owner.clone()).or_insert(0);
        limits.admit_running(row, *held)?;
        let size = to_i64(row.size());
        if self.used.saturating_add(size) > limits.budget() {
            return Ok(false);
        }
        self.used = self.used.saturating_add(size);
        self.taken.insert(row.id.clone());
        if row.finished_ms.is_none() {
            *held += 1;
        }
        Ok(true)
    }
}

/// Checks `creates` in batch order against `view`: refusals go to `outcomes`; returns the
/// admitted ones and where the rest starts (the first create that needs evictions, which the
/// store then applies one by one with everything after it).
pub(crate) fn admit_creates<'a>(
    view: &mut CreateView,
    creates: &[(usize, &'a TaskRow)],
    limits: &StoreLimits,
    outcomes: &mut [Result<(), StoreError>],
) -> (Vec<(usize, &'a TaskRow)>, usize) {
    let mut admitted = Vec::with_capacity(creates.len());
    for (n, (i, row)) in creates.iter().enumerate() {
        match view.admit(row, limits) {
            Ok(true) => admitted.push((*i, *row)),
            Ok(false) => return (admitted, n),
            Err(e) => outcomes[*i] = Err(e),
        }
    }
    (admitted, creates.len())
}
