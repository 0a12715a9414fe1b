//! The stored form of a task and the bounds a store enforces.

use bytes::Bytes;
use skillgate_a2a::types::json_len;
use skillgate_a2a::{PartContent, SharedJson, Task, TaskState};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch (the store's clock for retention, TTLs and leases).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Per-task facts the runtime needs and the wire Task does not carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// The skill declares `interaction.cancelable`.
    pub cancelable: bool,
    /// Created by the plain (not schema-governed) handler: follow-ups may continue it.
    pub plain: bool,
    /// A follow-up holds the turn of this interrupted task until its next status change.
    pub turn_taken: bool,
}

impl Flags {
    /// The bit form stored in the `flags` column.
    pub fn bits(self) -> i64 {
        i64::from(self.cancelable) | i64::from(self.plain) << 1 | i64::from(self.turn_taken) << 2
    }

    /// The inverse of [`Flags::bits`].
    pub fn from_bits(b: i64) -> Self {
        Self {
            cancelable: b & 1 != 0,
            plain: b & 2 != 0,
            turn_taken: b & 4 != 0,
        }
    }
}

/// A stored task's content: the Task itself (a typed row, what the memory store keeps), its
/// compact JSON (what a database holds), or both once a typed row was serialized.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    /// The Task, shared with the handle that wrote it; `None` for a row read from a database.
    typed: Option<Arc<Task>>,
    /// The compact JSON: set when the row was read or built serialized, else made on demand.
    json: OnceLock<Bytes>,
    /// The length of the compact JSON, exact whichever form the row holds.
    len: u64,
    /// Of `len`, the bytes the task's status and artifacts take
    /// ([`Task::status_and_artifacts_json_len`]), when a change counted them: the next change
    /// is then sized without counting the old ones again. Not counted up front (a
    /// describe_skill task's artifact is most of it, and most tasks are never changed).
    members: Option<u64>,
    /// The compact JSON with a shared text taken out, for a serialized row that holds one.
    cut: Option<Cut>,
}

/// A body with the text of one [`SharedJson`] taken out: what a SQL store writes in the task's
/// row, the text itself going once into a table of its own under its fingerprint. Every
/// describe_skill task holds its skill's whole Skill Interface Document; without this each one
/// would write the same few KiB again (a row spilling onto overflow pages, every page
/// checksummed into the log), with it the row holds the rest of the task.
// Read only by the SQL stores: a build with neither (an embedder's memory-only build) keeps
// computing it in `set_task` but never writes it.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
#[derive(Debug, Clone)]
pub(crate) struct Cut {
    /// How many bytes of the body come before the text.
    pub(crate) at: usize,
    /// The body without the text.
    pub(crate) rest: Bytes,
    /// The text taken out.
    pub(crate) shared: SharedJson,
}

/// Shared texts shorter than this stay in the row: a separate read costs more than they do.
const CUT_MIN: usize = 1024;

/// How many leading bytes of a shared text are searched for in a body (see [`Cut::of`]).
const CUT_HEAD: usize = 64;

impl Cut {
    /// The body `json` of `task` with its first artifact's shared text taken out, if it has
    /// one long enough. Where the text is found does not matter for correctness: the stored
    /// body gets back exactly `json` by putting the text back at `at`, whichever occurrence
    /// (a caller could have sent the same text in a message) was taken out.
    fn of(task: &Task, json: &Bytes) -> Option<Self> {
        let shared =
            task.artifacts
                .iter()
                .flat_map(|a| &a.parts)
                .find_map(|p| match &p.content {
                    PartContent::SharedData(s) if s.text().len() >= CUT_MIN => Some(s),
                    _ => None,
                })?;
        let text = shared.text().as_bytes();
        // Searched by its first bytes, each hit then compared whole: a searcher built for the
        // whole text (kilobytes) cost more to build than the rest of the write (callgrind:
        // about 160,000 instructions per describe_skill task).
        let head = &text[..text.len().min(CUT_HEAD)];
        let at = memchr::memmem::find_iter(json, head).find(|&i| json[i..].starts_with(text))?;
        let mut rest = Vec::with_capacity(json.len() - text.len());
        rest.extend_from_slice(&json[..at]);
        rest.extend_from_slice(&json[at + text.len()..]);
        Some(Self {
            at,
            rest: Bytes::from(rest),
            shared: shared.clone(),
        })
    }
}

impl Body {
    /// A body read from a database, or given as bytes.
    pub(crate) fn json(bytes: Bytes) -> Self {
        let len = bytes.len() as u64;
        Self {
            typed: None,
            json: OnceLock::from(bytes),
            len,
            members: None,
            cut: None,
        }
    }

    /// A typed body. Its length is counted by the serializer writing nowhere: a store budget
    /// needs the exact JSON length, but not the JSON.
    fn typed(task: Arc<Task>) -> Self {
        let len = json_len(&*task);
        Self::typed_sized(task, len, None)
    }

    /// A typed body whose JSON length `len` (and maybe the `members` of it, see
    /// [`Body::members`]) is known.
    fn typed_sized(task: Arc<Task>, len: u64, members: Option<u64>) -> Self {
        Self {
            typed: Some(task),
            json: OnceLock::new(),
            len,
            members,
            cut: None,
        }
    }

    fn bytes(&self) -> &Bytes {
        self.json.get_or_init(|| match &self.typed {
            Some(task) => serialize(task),
            None => Bytes::new(),
        })
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.bytes() == other.bytes()
    }
}

/// The compact JSON of a Task, in an allocation of exactly its size.
fn serialize(task: &Task) -> Bytes {
    let mut body = serde_json::to_vec(task).unwrap_or_default();
    // The serializer's buffer grows by doubling: without this a stored 4.7 KB task would
    // hold an 8 KB allocation for as long as it is kept.
    body.shrink_to_fit();
    Bytes::from(body)
}

/// One stored task: the Task (typed, or as its serialized JSON) plus the indexed columns.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    /// Task id.
    pub id: String,
    /// Context id (indexed for ListTasks).
    pub context_id: String,
    /// The authenticated principal that created it; `None` for anonymous tasks, which every
    /// caller may see (as without authentication).
    pub owner: Option<String>,
    /// Current state (indexed).
    pub state: TaskState,
    /// When the status last changed, ms since the epoch (list order and `statusTimestampAfter`).
    pub updated_ms: i64,
    /// When it reached a terminal state (retention), if it has.
    pub finished_ms: Option<i64>,
    /// Runtime flags.
    pub flags: Flags,
    /// Starts at 1; each accepted update adds one.
    pub version: i64,
    /// The caller's running-task limit applies to this create even if the row is finished: a
    /// task that ran before it was stored (the runtime's deferred tasks) is refused at its
    /// caller's limit as if it had been created running. Not stored; `false` on a row read.
    pub counts_as_running: bool,
    /// The Task: see [`TaskRow::body`] and [`TaskRow::shared_task`].
    pub(crate) body: Body,
}

impl TaskRow {
    /// A row for `task` at version 1, holding its JSON (serialized here, once).
    pub fn new(task: &Task, owner: Option<String>, flags: Flags) -> Self {
        let mut row = Self::empty(task, owner, flags);
        row.set_task(task);
        row
    }

    /// A row for `task` at version 1 that holds the Task itself, shared, not its JSON: what a
    /// store that answers [`crate::TaskStore::keeps_typed_tasks`] wants, since nothing is
    /// serialized unless someone asks for [`TaskRow::body`].
    pub fn typed(task: Arc<Task>, owner: Option<String>, flags: Flags) -> Self {
        let mut row = Self::empty(&task, owner, flags);
        row.set_typed(task);
        row
    }

    fn empty(task: &Task, owner: Option<String>, flags: Flags) -> Self {
        Self {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            owner,
            state: TaskState::Unspecified,
            updated_ms: 0,
            finished_ms: None,
            flags,
            version: 1,
            counts_as_running: false,
            body: Body::json(Bytes::new()),
        }
    }

    /// The stored Task (a copy of a typed row's, or parsed from the JSON).
    pub fn task(&self) -> Result<Task, crate::StoreError> {
        match &self.body.typed {
            Some(task) => Ok(Task::clone(task)),
            None => self.parse(),
        }
    }

    /// The stored Task, shared: a typed row's own (no copy), or parsed from the JSON.
    pub fn shared_task(&self) -> Result<Arc<Task>, crate::StoreError> {
        match &self.body.typed {
            Some(task) => Ok(Arc::clone(task)),
            None => self.parse().map(Arc::new),
        }
    }

    fn parse(&self) -> Result<Task, crate::StoreError> {
        serde_json::from_slice(self.body.bytes())
            .map_err(|e| crate::StoreError::Corrupt(self.id.clone(), e.to_string()))
    }

    /// The Task as compact JSON: exactly the bytes a database stores and reads back after a
    /// restart. A typed row serializes its Task on the first call.
    pub fn body(&self) -> &Bytes {
        self.body.bytes()
    }

    /// What a SQL store writes in the row's body column: [`TaskRow::body`], or the body with
    /// a shared text taken out ([`TaskRow::cut`]).
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn stored_body(&self) -> &[u8] {
        match &self.body.cut {
            Some(cut) => &cut.rest,
            None => self.body(),
        }
    }

    /// The shared text taken out of [`TaskRow::stored_body`], if any: where it goes back, and
    /// the text with its fingerprint.
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn cut(&self) -> Option<&Cut> {
        self.body.cut.as_ref()
    }

    /// Whether keeping this row as its compact JSON instead of its typed Task saves memory: it
    /// is typed, and none of its parts is shared text (a describe_skill task's document is one
    /// `Arc` however many tasks hold it, while its JSON would be a copy per task).
    pub(crate) fn compacts(&self) -> bool {
        self.body.typed.as_ref().is_some_and(|t| {
            !t.artifacts
                .iter()
                .flat_map(|a| &a.parts)
                .any(|p| matches!(p.content, PartContent::SharedData(_)))
        })
    }

    /// Keeps the row as its compact JSON only, letting go of the typed Task (a reader that
    /// holds it keeps its own). Reads then parse it; the bytes and the budget are the same.
    pub(crate) fn compact(&mut self) {
        if self.body.typed.is_some() {
            let json = self.body.bytes().clone();
            self.body = Body::json(json);
        }
    }

    /// Length of [`TaskRow::body`] in bytes, known without serializing a typed row.
    pub fn body_len(&self) -> u64 {
        self.body.len
    }

    /// Replaces the body with these exact bytes (a database never parses bodies; tests give
    /// rows bodies of a chosen size). The columns are left as they are.
    pub fn set_body(&mut self, bytes: Bytes) {
        self.body = Body::json(bytes);
    }

    /// Replaces the stored Task with its JSON (serialized here) and the columns derived from
    /// it (state, update time, finish time). The version is the caller's to advance.
    pub fn set_task(&mut self, task: &Task) {
        let json = serialize(task);
        let cut = Cut::of(task, &json);
        self.body = Body::json(json);
        self.body.cut = cut;
        self.set_columns(task);
    }

    /// [`TaskRow::set_task`] keeping the Task itself, shared, instead of its JSON (see
    /// [`TaskRow::typed`]).
    pub fn set_typed(&mut self, task: Arc<Task>) {
        self.set_columns(&task);
        self.body = Body::typed(task);
    }

    /// [`TaskRow::set_typed`] for a `task` made from this row's own by a change of its status
    /// and artifacts: sized from the row's length, less the old members' bytes (kept with the
    /// body after its first change), plus the new ones'; the rest (the request in its history)
    /// is not serialized again. A row that does not hold its task typed, or a change of
    /// anything else (ids, metadata, history's length or messages), is sized in full.
    pub fn set_typed_changed(&mut self, task: Arc<Task>) {
        let (len, members) = match &self.body.typed {
            Some(old) if same_but_status_and_artifacts(old, &task) => {
                let old_members =
                    (self.body.members).unwrap_or_else(|| old.status_and_artifacts_json_len());
                let members = task.status_and_artifacts_json_len();
                (
                    self.body.len.saturating_sub(old_members) + members,
                    Some(members),
                )
            }
            // Counted whole; the members are counted only if a later change needs them.
            _ => (json_len(&*task), None),
        };
        debug_assert_eq!(len, json_len(&*task), "a changed task was sized wrong");
        self.set_columns(&task);
        self.body = Body::typed_sized(task, len, members);
    }

    fn set_columns(&mut self, task: &Task) {
        self.state = task.status.state;
        self.updated_ms = task
            .status
            .timestamp
            .as_deref()
            .and_then(parse_ms)
            .unwrap_or_else(now_ms);
        if self.state.is_terminal() {
            self.finished_ms.get_or_insert_with(now_ms);
        }
    }

    /// Bytes this row costs in the store's budget (the body plus a fixed overhead for the
    /// columns and index entries).
    pub fn size(&self) -> u64 {
        const ROW_OVERHEAD: u64 = 256;
        self.body.len
            + self.id.len() as u64
            + self.context_id.len() as u64
            + self.owner.as_ref().map_or(0, |o| o.len() as u64)
            + ROW_OVERHEAD
    }

    /// Whether the task still needs a worker (submitted or working): what a lease covers.
    pub fn is_running(&self) -> bool {
        matches!(self.state, TaskState::Submitted | TaskState::Working)
    }
}

/// Whether `new` can differ from `old` only in status and artifacts: the same ids, no
/// metadata, the same history messages (by id; no change edits a message in place, which the
/// debug build's full count in [`TaskRow::set_typed_changed`] would catch).
fn same_but_status_and_artifacts(old: &Task, new: &Task) -> bool {
    old.id == new.id
        && old.context_id == new.context_id
        && old.metadata.is_none()
        && new.metadata.is_none()
        && old.history.len() == new.history.len()
        && old
            .history
            .iter()
            .zip(&new.history)
            .all(|(a, b)| a.message_id == b.message_id)
}

/// Parses the RFC 3339 timestamps the runtime writes into ms since the epoch.
fn parse_ms(s: &str) -> Option<i64> {
    skillgate_a2a::timestamp::parse_rfc3339_millis(s)
}

/// A ListTasks query, already validated by the runtime.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// The caller: it sees its own tasks and anonymous ones. `None` (no authentication) sees
    /// only anonymous tasks, which are then all of them.
    pub caller: Option<String>,
    /// Only this context.
    pub context_id: Option<String>,
    /// Only this state.
    pub state: Option<TaskState>,
    /// Only tasks whose status changed after this instant (ms since the epoch).
    pub updated_after_ms: Option<i64>,
    /// Rows to skip.
    pub offset: u64,
    /// Rows to return (1..=100).
    pub limit: u32,
}

/// One page of ListTasks.
#[derive(Debug, Clone, Default)]
pub struct ListPage {
    /// The rows, newest status first (ties by id).
    pub rows: Vec<TaskRow>,
    /// Matching rows in all pages.
    pub total: u64,
}

/// Bounds a store enforces whatever its clients send.
#[derive(Debug, Clone)]
pub struct StoreLimits {
    /// Byte budget of the whole store; the oldest finished tasks are evicted beyond it.
    pub max_bytes: u64,
    /// Byte budget of one task (request message, history and artifacts); the runtime keeps
    /// each task within it.
    pub max_task_bytes: u64,
    /// Most unfinished tasks (running or interrupted) one caller may hold; anonymous callers
    /// share one allowance.
    pub max_running_per_caller: usize,
    /// Interrupted tasks (input or auth required) fail after waiting this long.
    pub interrupted_ttl: Duration,
    /// Finished tasks are deleted after this long.
    pub retention: Duration,
    /// A running task whose replica has not renewed its lease for this long is failed by
    /// another replica.
    pub lease_ttl: Duration,
}

impl StoreLimits {
    /// The defaults of the store kind `url` names: [`StoreLimits::memory`] for `memory`,
    /// [`StoreLimits::disk`] for the SQL stores.
    pub fn for_url(url: &str) -> Self {
        if url == "memory" {
            Self::memory()
        } else {
            Self::disk()
        }
    }

    /// Defaults for an in-memory store: 16 MiB in all (a process holds about twice its budget
    /// in RSS: the load bench measured 86 MiB after 100,000 calls at 32 MiB).
    pub fn memory() -> Self {
        Self {
            max_bytes: 16 << 20,
            ..Self::disk()
        }
    }

    /// Defaults for an on-disk store: 1 GiB in all, 256 KiB per task, 1,000 unfinished tasks
    /// per caller, interrupted tasks 1 h, retention 24 h, leases 15 s.
    pub fn disk() -> Self {
        Self {
            max_bytes: 1 << 30,
            max_task_bytes: 256 << 10,
            max_running_per_caller: 1000,
            interrupted_ttl: Duration::from_secs(3600),
            retention: Duration::from_secs(24 * 3600),
            lease_ttl: Duration::from_secs(15),
        }
    }

    /// `retention` in ms.
    pub(crate) fn retention_ms(&self) -> i64 {
        i64::try_from(self.retention.as_millis()).unwrap_or(i64::MAX)
    }

    /// `interrupted_ttl` in ms.
    pub(crate) fn interrupted_ms(&self) -> i64 {
        i64::try_from(self.interrupted_ttl.as_millis()).unwrap_or(i64::MAX)
    }

    /// The per-caller limit for a new `row` whose caller already holds `held` unfinished
    /// tasks, the one rule every store applies: refused at the limit; a row created finished
    /// (a task that ended in its first write) holds nothing and is never refused here, unless
    /// it ran before it was stored ([`TaskRow::counts_as_running`]).
    pub(crate) fn admit_running(
        &self,
        row: &TaskRow,
        held: usize,
    ) -> Result<(), crate::StoreError> {
        let running = row.finished_ms.is_none() || row.counts_as_running;
        if running && held >= self.max_running_per_caller {
            return Err(crate::StoreError::CallerLimit(held));
        }
        Ok(())
    }

    /// `max_bytes` as an SQL `BIGINT` (saturating), the budget the SQL stores compare with.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn budget(&self) -> i64 {
        i64::try_from(self.max_bytes).unwrap_or(i64::MAX)
    }

    /// `lease_ttl` in ms.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn lease_ms(&self) -> i64 {
        i64::try_from(self.lease_ttl.as_millis()).unwrap_or(i64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_round_trip() {
        for b in 0..8 {
            assert_eq!(Flags::from_bits(b).bits(), b);
        }
    }

    /// Whatever the change, the row's length is the task's JSON length (the debug build also
    /// asserts it inside `set_typed_changed`; this test holds in release too).
    #[test]
    fn a_changed_typed_row_is_sized_exactly() {
        use skillgate_a2a::{Artifact, Message, Part};
        let message = |id: &str| Message {
            message_id: id.into(),
            parts: vec![Part::text("ask")],
            ..Default::default()
        };
        let first = Arc::new(Task {
            id: "t".into(),
            context_id: "c".into(),
            history: vec![message("m1")],
            ..Default::default()
        });
        let mut row = TaskRow::typed(Arc::clone(&first), None, Flags::default());
        let mut done = Task::clone(&first);
        done.status.state = TaskState::Completed;
        done.artifacts.push(Artifact {
            artifact_id: "r".into(),
            parts: vec![Part::text("\u{1}quoted \"é\"")],
            ..Default::default()
        });
        let mut turned = done.clone();
        turned.history.push(message("m2"));
        let mut renamed = turned.clone();
        renamed.history[0].message_id = "other".into();
        let mut more = renamed.clone();
        more.artifacts.push(Artifact {
            artifact_id: "s".into(),
            ..Default::default()
        });
        more.status.state = TaskState::Failed;
        for next in [done, turned, renamed, more] {
            let len = serde_json::to_vec(&next).unwrap().len() as u64;
            row.set_typed_changed(Arc::new(next));
            assert_eq!(row.body_len(), len);
        }
    }

    #[test]
    fn row_columns_follow_the_task() {
        let mut t = Task {
            id: "t1".into(),
            context_id: "c1".into(),
            ..Default::default()
        };
        t.status.state = TaskState::Completed;
        t.status.timestamp = Some("2026-12-03T10:00:00.123Z".into());
        let row = TaskRow::new(&t, None, Flags::default());
        assert_eq!(row.updated_ms, 1_796_292_000_123);
        assert!(row.finished_ms.is_some());
        assert_eq!(row.task().unwrap(), t);
    }

    #[test]
    fn a_typed_row_counts_and_serializes_exactly_what_a_serialized_one_holds() {
        let mut t = Task {
            id: "t1".into(),
            context_id: "c\u{e9}\"1\n".into(),
            ..Default::default()
        };
        t.status.state = TaskState::Working;
        t.status.timestamp = Some("2026-12-03T10:00:00.123Z".into());
        t.history.push(skillgate_a2a::Message {
            message_id: "m".into(),
            parts: vec![skillgate_a2a::Part::text("\u{1f600} \t\u{7}")],
            ..Default::default()
        });
        let json = TaskRow::new(&t, Some("o".into()), Flags::default());
        let typed = TaskRow::typed(Arc::new(t.clone()), Some("o".into()), Flags::default());
        assert_eq!(typed.body_len(), json.body().len() as u64);
        assert_eq!(typed.size(), json.size());
        assert_eq!(
            (typed.state, typed.updated_ms),
            (json.state, json.updated_ms)
        );
        assert_eq!(typed.body(), json.body());
        assert_eq!(typed, json);
        assert_eq!(typed.task().unwrap(), t);
        assert_eq!(*json.shared_task().unwrap(), t);
    }
}
