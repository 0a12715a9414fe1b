//! How a SQL store's writer applies a batch, whatever the dialect: the batch's updates in
//! one statement (a task's second update in the batch after it, on its own), then its
//! creates checked in batch order against one read and inserted in one statement
//! ([`Plan::apply`]). What each store adds is only the executing of the statements
//! ([`super::query`]) on its connection ([`BatchDb`]): sqlx cannot execute a builder in code
//! generic over the database (see `query`'s module doc), so the flow is generic over that
//! instead.
//!
//! Updates go first, then creates: the writes of one batch come from callers that did not
//! wait for each other, so any order is one they could have had; a task's update never shares
//! a batch with its create (its caller waited for the create's commit).

use crate::group::Write;
use crate::row::{StoreLimits, TaskRow};
use crate::sql::{to_i64, to_u64};
use crate::{expected_version, StoreError};
use async_trait::async_trait;
use std::collections::{HashMap, HashSet};

/// PostgreSQL's batch statements of at most this many rows are kept prepared (sqlx's
/// per-connection statement cache); larger ones are prepared for one use. Preparing a batch
/// statement costs more than executing it for a few rows (measured: a one-write batch on
/// SQLite cost about 200,000 more instructions prepared each time), while a large batch
/// spreads it over its rows; and the cache holds only the few texts small batches make (their
/// text differs with the number of rows), within its capacity. SQLite splits a batch into
/// statements of cached sizes instead (`sqlite::batch::chunks`).
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
    /// The shared texts taken out of the rows' bodies (see [`TaskRow::cut`]), each once:
    /// `(fingerprint, text)`.
    pub(crate) shared: Vec<(&'a str, &'a str)>,
}

impl<'a> Plan<'a> {
    /// Splits `batch`.
    pub(crate) fn of(batch: &[&'a Write]) -> Self {
        let mut plan = Plan::default();
        let mut seen: HashSet<&str> = HashSet::new();
        for (i, w) in batch.iter().enumerate() {
            if let Some(cut) = w.row().cut() {
                let text = (cut.shared.fingerprint(), cut.shared.text());
                if !plan.shared.contains(&text) {
                    plan.shared.push(text);
                }
            }
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

/// Most fingerprints a writer remembers; past it, it forgets them all and stores each text
/// once more (a no-op write) the next time a row has it taken out. A server has one per
/// skill version it describes, so this is only reached by one that swaps skills very often.
const KNOWN_MAX: usize = 1024;

/// The shared texts a writer has seen committed, so a batch stores only the new ones. Per
/// writer, not per store: two writers (or replicas) may both store a text, which is then a
/// no-op for the second. A text is only ever added, never deleted (a store keeps one per
/// skill version it described), so what was committed stays true.
#[derive(Debug, Default)]
pub(crate) struct KnownShared(HashSet<String>);

impl KnownShared {
    /// The shared texts of `plan` not known to be committed.
    pub(crate) fn missing<'a>(&self, plan: &Plan<'a>) -> Vec<(&'a str, &'a str)> {
        plan.shared
            .iter()
            .filter(|(key, _)| !self.0.contains(*key))
            .copied()
            .collect()
    }

    /// Records `texts` as committed (call only after their transaction committed).
    pub(crate) fn committed(&mut self, texts: &[(&str, &str)]) {
        if self.0.len() + texts.len() > KNOWN_MAX {
            self.0.clear();
        }
        self.0
            .extend(texts.iter().map(|(key, _)| (*key).to_string()));
    }
}

/// The statements a batch needs, executed by one store inside its batch's transaction.
#[async_trait]
pub(crate) trait BatchDb: Send {
    /// [`super::query::Statements::update_many`]: the ids it changed.
    async fn update_rows(
        &mut self,
        rows: &[(&TaskRow, i64)],
    ) -> Result<HashSet<String>, StoreError>;
    /// [`super::query::Statements::insert_many`]: the ids that went in.
    async fn insert_rows(&mut self, rows: &[&TaskRow]) -> Result<HashSet<String>, StoreError>;
    /// [`super::query::Statements::keep_shared`].
    async fn keep_shared(&mut self, texts: &[(&str, &str)]) -> Result<(), StoreError>;
    /// Which of `ids` are stored.
    async fn present(&mut self, ids: &[&str]) -> Result<HashSet<String>, StoreError>;
    /// [`super::query::Statements::create_view`], read.
    async fn view(&mut self, rows: &[&TaskRow]) -> Result<CreateView, StoreError>;
    /// After updates: evicts finished tasks (never those in `updated`) until the store is
    /// within its budget again.
    async fn make_room(&mut self, updated: &[&str]) -> Result<(), StoreError>;
    /// Evicts finished tasks until `size` more bytes fit, inside a savepoint it rolls back if
    /// they still do not: `None` when they fit, else the bytes held.
    async fn evict_for(&mut self, size: i64) -> Result<Option<i64>, StoreError>;
}

impl Plan<'_> {
    /// Applies the plan on `db`, first storing the shared texts in `missing` (those of its
    /// rows not yet known to be stored: [`KnownShared::missing`]): every write's outcome goes
    /// to `outcomes` (by batch position); returns the positions of the updates applied, in
    /// the order they were.
    pub(crate) async fn apply<D: BatchDb>(
        &self,
        db: &mut D,
        limits: &StoreLimits,
        missing: &[(&str, &str)],
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<Vec<usize>, StoreError> {
        if !missing.is_empty() {
            db.keep_shared(missing).await?;
        }
        let applied = self.updates(db, outcomes).await?;
        self.creates(db, limits, outcomes).await?;
        Ok(applied)
    }

    /// The updates: one statement, then the repeated ones alone (a one-row statement each);
    /// an update that changed no row is a conflict or a vanished task, told apart by one
    /// more query.
    async fn updates<D: BatchDb>(
        &self,
        db: &mut D,
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<Vec<usize>, StoreError> {
        if self.updates.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<(&TaskRow, i64)> = self.updates.iter().map(|(_, r, e)| (*r, *e)).collect();
        let changed = db.update_rows(&rows).await?;
        let mut applied: Vec<(usize, &str)> = Vec::with_capacity(rows.len() + self.again.len());
        let mut missed: Vec<(usize, &TaskRow)> = Vec::new();
        for (i, row, _) in &self.updates {
            if changed.contains(row.id.as_str()) {
                applied.push((*i, &row.id));
            } else {
                missed.push((*i, row));
            }
        }
        for (i, row, expected) in &self.again {
            if db.update_rows(&[(*row, *expected)]).await?.is_empty() {
                missed.push((*i, row));
            } else {
                applied.push((*i, &row.id));
            }
        }
        if !missed.is_empty() {
            let ids: Vec<&str> = missed.iter().map(|(_, r)| r.id.as_str()).collect();
            let present = db.present(&ids).await?;
            for (i, row) in missed {
                outcomes[i] = Err(if present.contains(row.id.as_str()) {
                    StoreError::Conflict(row.id.clone())
                } else {
                    StoreError::NotFound(row.id.clone())
                });
            }
        }
        if !applied.is_empty() {
            // Growing tasks may push finished ones out (never one just updated); an update is
            // never refused for it (the runtime keeps each task within its own budget). Once
            // per batch: one usage check instead of one per update.
            let updated: Vec<&str> = applied.iter().map(|(_, id)| *id).collect();
            db.make_room(&updated).await?;
        }
        Ok(applied.into_iter().map(|(i, _)| i).collect())
    }

    /// The creates: checked against one read, the admitted ones inserted by one statement;
    /// from the first that needs finished tasks evicted on, room is made for all the rest at
    /// once ([`creates_after_room`]), or, when they cannot all fit, each takes the
    /// one-at-a-time path.
    async fn creates<D: BatchDb>(
        &self,
        db: &mut D,
        limits: &StoreLimits,
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<(), StoreError> {
        if self.creates.is_empty() {
            return Ok(());
        }
        let rows: Vec<&TaskRow> = self.creates.iter().map(|(_, r)| *r).collect();
        let mut view = db.view(&rows).await?;
        let (admitted, mut rest) = admit_creates(&mut view, &self.creates, limits, outcomes);
        insert_admitted(db, &admitted, outcomes).await?;
        if rest < self.creates.len() {
            rest = creates_after_room(db, &self.creates, rest, &view, limits, outcomes).await?;
        }
        for (i, row) in self.creates.iter().skip(rest) {
            outcomes[*i] = create_alone(db, row, limits).await?;
        }
        Ok(())
    }
}

/// Inserts the creates `admitted` in one statement; one whose id another writer (a replica)
/// took since the view was read is a conflict.
async fn insert_admitted<D: BatchDb>(
    db: &mut D,
    admitted: &[(usize, &TaskRow)],
    outcomes: &mut [Result<(), StoreError>],
) -> Result<(), StoreError> {
    if admitted.is_empty() {
        return Ok(());
    }
    let rows: Vec<&TaskRow> = admitted.iter().map(|(_, r)| *r).collect();
    let inserted = db.insert_rows(&rows).await?;
    for (i, row) in admitted {
        if !inserted.contains(row.id.as_str()) {
            outcomes[*i] = Err(StoreError::Conflict(row.id.clone()));
        }
    }
    Ok(())
}

/// The creates from `from` on, the first of which only fits once finished tasks are evicted:
/// room is made for all of them by one eviction, then they are checked again and inserted by
/// one statement. Returns where the one-at-a-time path starts: past them all, or at `from`
/// when they do not all fit even then (the eviction is rolled back, and each is then decided
/// alone, as before).
///
/// The same tasks go as one at a time would evict: the oldest finished first, until the bytes
/// of every create that passes its other checks fit. A full store used to take the
/// one-at-a-time path for nearly every create (a read, a savepoint, 256 candidates fetched to
/// delete one, an insert): under load a SQLite store at its budget answered 1,015 describe_skill
/// calls a second instead of 17,000 (benchmarks.md).
async fn creates_after_room<D: BatchDb>(
    db: &mut D,
    creates: &[(usize, &TaskRow)],
    from: usize,
    view: &CreateView,
    limits: &StoreLimits,
    outcomes: &mut [Result<(), StoreError>],
) -> Result<usize, StoreError> {
    let rest = &creates[from..];
    let wanted = view.bytes_wanted(rest.iter().map(|(_, r)| *r), limits);
    if db.evict_for(wanted).await?.is_some() {
        return Ok(from);
    }
    let rows: Vec<&TaskRow> = rest.iter().map(|(_, r)| *r).collect();
    let mut view = db.view(&rows).await?;
    let (admitted, n) = admit_creates(&mut view, rest, limits, outcomes);
    insert_admitted(db, &admitted, outcomes).await?;
    Ok(from + n)
}

/// One create on its own, checks included: the path of a create that needs finished tasks
/// evicted (undone if it still does not fit: nothing is lost for a task refused anyway).
async fn create_alone<D: BatchDb>(
    db: &mut D,
    row: &TaskRow,
    limits: &StoreLimits,
) -> Result<Result<(), StoreError>, StoreError> {
    let mut view = db.view(&[row]).await?;
    match view.admit(row, limits) {
        Err(e) => return Ok(Err(e)),
        Ok(true) => {}
        Ok(false) => {
            if let Some(used) = db.evict_for(to_i64(row.size())).await? {
                return Ok(Err(StoreError::Full {
                    used: to_u64(used),
                    budget: limits.max_bytes,
                }));
            }
        }
    }
    if db.insert_rows(&[row]).await?.is_empty() {
        return Ok(Err(StoreError::Conflict(row.id.clone())));
    }
    Ok(Ok(()))
}

/// What creates are checked against (see [`super::query::Statements::create_view`]).
#[derive(Debug, Default, Clone)]
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

    /// The bytes `rows` would add, each checked in order as [`CreateView::admit`] checks it
    /// with no budget to meet: a taken id or a caller at its limit adds nothing. The view
    /// itself is left as it is.
    pub(crate) fn bytes_wanted<'a>(
        &self,
        rows: impl Iterator<Item = &'a TaskRow>,
        limits: &StoreLimits,
    ) -> i64 {
        // Counted from far below any budget, so no create is held back by it.
        let start = i64::MIN / 2;
        let mut trial = CreateView {
            used: start,
            ..self.clone()
        };
        for row in rows {
            let _ = trial.admit(row, limits);
        }
        trial.used - start
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
fn admit_creates<'a>(
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
