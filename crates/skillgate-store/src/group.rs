//! Group commit: the writes of a SQL store go through one queue per writer lane, and the
//! lane's writer task commits every write queued while its previous commit was being flushed
//! in one transaction. Sixty-four concurrent requests then share one flush to disk instead of
//! paying one each, and the per-transaction costs (BEGIN, COMMIT, the usage check after
//! updates, PostgreSQL's notification lock) are paid once per batch.
//!
//! A caller resumes only after the commit that carries its write returned (or after its
//! write was refused or failed), and the events of an accepted update are published before
//! its caller resumes: "written before the response or event that reports it" holds as it did
//! with one transaction per write. The queue is bounded: when the writer falls behind, callers
//! wait to enqueue instead of growing memory.
//!
//! The writer runs in its own task, so a caller that gives up (its request was dropped) never
//! aborts a transaction carrying other callers' writes; its write commits or fails like the
//! others and nobody reads the answer.

use crate::StoreError;
use async_trait::async_trait;
use skillgate_a2a::StreamResponse;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot, watch};

use crate::row::TaskRow;

/// Writes queued per lane before callers wait to enqueue (backpressure).
const QUEUE: usize = 1024;

/// Most writes committed in one transaction: bounds how long one transaction holds the
/// store (SQLite's single connection, PostgreSQL's row locks) and how much one failure retries.
const MAX_BATCH: usize = 256;

/// One write of the trait's write methods, owned so the writer task can hold it.
#[derive(Debug)]
pub(crate) enum Write {
    /// [`crate::TaskStore::create`].
    Create(TaskRow),
    /// [`crate::TaskStore::update`] with its events.
    Update(TaskRow, Vec<StreamResponse>),
}

impl Write {
    /// The task the write is about.
    pub(crate) fn id(&self) -> &str {
        &self.row().id
    }

    /// The row it writes.
    pub(crate) fn row(&self) -> &TaskRow {
        match self {
            Write::Create(r) | Write::Update(r, _) => r,
        }
    }
}

/// What the writer of one store kind does with a batch. A refusal of one write (a conflict,
/// a full store) is that write's outcome and leaves the others alone; a database error fails
/// the batch, which is then retried one write per transaction so only the failing write fails.
#[async_trait]
pub(crate) trait Committer: Send + 'static {
    /// Applies every write of `batch` in one transaction, waits for `gate` right before
    /// COMMIT, commits, and returns each write's outcome in order.
    async fn commit(
        &mut self,
        batch: &[&Write],
        gate: &Gate,
    ) -> Result<Vec<Result<(), StoreError>>, StoreError>;

    /// Called once per accepted write, in commit order, after its commit and before its
    /// caller resumes (the local store publishes the update's events here).
    fn committed(&self, write: &Write);
}

struct Queued {
    write: Write,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// The write queues of one store and the counters of what its writers committed.
#[derive(Debug)]
pub(crate) struct Queue {
    lanes: Vec<mpsc::Sender<Queued>>,
    gate: Arc<Gate>,
    stats: Arc<Stats>,
}

#[derive(Debug, Default)]
struct Stats {
    batches: AtomicU64,
    writes: AtomicU64,
}

/// What a store's writers have committed since it was opened: with many concurrent writers
/// `writes / batches` is the number of writes sharing one flush to disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommitStats {
    /// Transactions committed by the writers (failed ones are not counted).
    pub batches: u64,
    /// Writes those transactions carried, refused ones included.
    pub writes: u64,
}

impl Queue {
    /// Starts one writer task per committer (a lane each); writes of one task always take the
    /// same lane, so they commit in the order their callers submitted them.
    pub(crate) fn start<C: Committer>(committers: Vec<C>) -> Self {
        let gate = Arc::new(Gate::default());
        let stats = Arc::new(Stats::default());
        let lanes = committers
            .into_iter()
            .map(|c| {
                let (tx, rx) = mpsc::channel(QUEUE);
                tokio::spawn(run(rx, c, gate.clone(), stats.clone()));
                tx
            })
            .collect();
        Self { lanes, gate, stats }
    }

    /// Queues `write` and waits until the transaction carrying it has committed (or the write
    /// was refused or failed).
    pub(crate) async fn submit(&self, write: Write) -> Result<(), StoreError> {
        let lane = match self.lanes.len() {
            0 | 1 => 0,
            n => lane_of(write.id(), n),
        };
        let Some(tx) = self.lanes.get(lane) else {
            return Err(stopped());
        };
        let (reply, answer) = oneshot::channel();
        tx.send(Queued { write, reply })
            .await
            .map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// See [`CommitHold`].
    pub(crate) fn hold(&self) -> CommitHold {
        CommitHold::new(self.gate.clone())
    }

    /// See [`CommitStats`].
    pub(crate) fn stats(&self) -> CommitStats {
        CommitStats {
            batches: self.stats.batches.load(Ordering::Relaxed),
            writes: self.stats.writes.load(Ordering::Relaxed),
        }
    }
}

/// The refusal of a write whose writer task is gone (its runtime shut down, or it panicked).
fn stopped() -> StoreError {
    StoreError::Database("the task store's writer has stopped".into())
}

/// The lane of a task id: FNV-1a, stable and cheap (no need for a keyed hash here).
fn lane_of(id: &str, lanes: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    usize::try_from(h % lanes as u64).unwrap_or(0)
}

/// One writer: takes what is queued (at most [`MAX_BATCH`]), commits it, answers, repeats;
/// ends when the store (every sender) is gone and the queue is drained.
async fn run<C: Committer>(
    mut rx: mpsc::Receiver<Queued>,
    mut committer: C,
    gate: Arc<Gate>,
    stats: Arc<Stats>,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let writes: Vec<&Write> = batch.iter().map(|q| &q.write).collect();
        let outcomes = match committer.commit(&writes, &gate).await {
            Ok(outcomes) => {
                count(&stats, writes.len());
                outcomes
            }
            // One write alone: its error is its outcome.
            Err(e) if writes.len() == 1 => vec![Err(e)],
            // Some write broke the shared transaction: each alone, so only it fails.
            Err(_) => {
                let mut outcomes = Vec::with_capacity(writes.len());
                for w in &writes {
                    let one = match committer.commit(std::slice::from_ref(w), &gate).await {
                        Ok(mut o) => {
                            count(&stats, 1);
                            o.pop().unwrap_or(Ok(()))
                        }
                        Err(e) => Err(e),
                    };
                    if one.is_ok() {
                        committer.committed(w);
                    }
                    outcomes.push(one);
                }
                drop(writes);
                answer(&mut batch, outcomes);
                continue;
            }
        };
        for (w, o) in writes.iter().zip(&outcomes) {
            if o.is_ok() {
                committer.committed(w);
            }
        }
        drop(writes);
        answer(&mut batch, outcomes);
    }
}

fn count(stats: &Stats, writes: usize) {
    stats.batches.fetch_add(1, Ordering::Relaxed);
    stats.writes.fetch_add(writes as u64, Ordering::Relaxed);
}

/// Sends each queued write its outcome (a caller that gave up is not an error) and empties
/// the batch for the next round.
fn answer(batch: &mut Vec<Queued>, outcomes: Vec<Result<(), StoreError>>) {
    let mut outcomes = outcomes.into_iter();
    for q in batch.drain(..) {
        let o = outcomes
            .next()
            .unwrap_or_else(|| Err(StoreError::Database("no outcome for a queued write".into())));
        let _ = q.reply.send(o);
    }
}

/// The test hook of group commit: while a [`CommitHold`] is alive, writers stop right before
/// COMMIT (their statements executed, nothing durable yet).
#[derive(Debug)]
pub(crate) struct Gate {
    held: watch::Sender<bool>,
    /// How many times a writer stopped at the gate.
    parked: watch::Sender<u64>,
}

impl Default for Gate {
    fn default() -> Self {
        Self {
            held: watch::Sender::new(false),
            parked: watch::Sender::new(0),
        }
    }
}

impl Gate {
    /// Returns at once unless a hold is alive; then waits until it is released.
    pub(crate) async fn pass(&self) {
        if !*self.held.borrow() {
            return;
        }
        self.parked.send_modify(|n| *n += 1);
        let mut held = self.held.subscribe();
        // An error means the sender is gone, which cannot happen while `self` lives.
        let _ = held.wait_for(|h| !*h).await;
    }
}

/// Holds every commit of a store until dropped, so a test can see that a write's caller
/// does not resume before its transaction commits (and that writes queued meanwhile share
/// the next one). Costs the writers one flag check per batch when unused.
#[derive(Debug)]
pub struct CommitHold {
    gate: Arc<Gate>,
    parked_before: u64,
}

impl CommitHold {
    fn new(gate: Arc<Gate>) -> Self {
        gate.held.send_replace(true);
        let parked_before = *gate.parked.borrow();
        Self {
            gate,
            parked_before,
        }
    }

    /// Waits until a writer has executed a batch and stopped before its COMMIT.
    pub async fn parked(&self) {
        let mut parked = self.gate.parked.subscribe();
        let before = self.parked_before;
        let _ = parked.wait_for(|n| *n > before).await;
    }
}

impl Drop for CommitHold {
    fn drop(&mut self) {
        self.gate.held.send_replace(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_stable_and_spread() {
        assert_eq!(lane_of("task-1", 4), lane_of("task-1", 4));
        let used: std::collections::HashSet<usize> =
            (0..64).map(|i| lane_of(&format!("t{i}"), 4)).collect();
        assert_eq!(used.len(), 4);
    }
}
