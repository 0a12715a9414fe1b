//! What the SQLite and PostgreSQL stores share: the column list, row decoding, the
//! statements whose SQL is the same in both dialects ([`query`]), the event payload carried
//! by PostgreSQL notifications, and message scrubbing.

pub(crate) mod plan;
pub(crate) mod query;

#[cfg(feature = "postgres")]
use crate::hub::HubEvent;
use crate::row::{Flags, TaskRow};
use crate::PushRegistration;
use crate::StoreError;
use bytes::Bytes;
use skillgate_a2a::version::WireVersion;
#[cfg(feature = "postgres")]
use skillgate_a2a::StreamResponse;
use skillgate_a2a::{TaskPushNotificationConfig, TaskState};
use sqlx::{ColumnIndex, Decode, Row, Type};

/// The columns [`decode_row`] reads, in its order. The body is read whole: a row whose body
/// had a shared text taken out (`shared_at` set; see `TaskRow::cut`) gets it back from
/// `shared_json` at that offset, so every reader sees exactly the bytes that were written.
/// The same SQL in both dialects (`substr` counts bytes of a BLOB or BYTEA; SQLite's `||`
/// yields TEXT, which reads back as the same bytes).
pub(crate) const COLUMNS: &str = "id, context_id, owner, state, updated_ms, finished_ms, flags, \
    version, CASE WHEN shared_at IS NULL THEN body ELSE \
    substr(body, 1, CAST(shared_at AS INTEGER)) \
    || (SELECT text FROM shared_json WHERE key = tasks.shared_key) \
    || substr(body, CAST(shared_at AS INTEGER) + 1) END";

/// Rows deleted per statement by purges and evictions (keeps each transaction short).
pub(crate) const DELETE_BATCH: i64 = 256;

/// `running` states (a lease covers them) as an SQL list: Submitted, Working.
pub(crate) const RUNNING_STATES: &str = "(1, 2)";

/// `interrupted` states as an SQL list: InputRequired, AuthRequired.
pub(crate) const INTERRUPTED_STATES: &str = "(6, 8)";

/// The `state` column value of a task state.
pub(crate) fn state_number(s: TaskState) -> i32 {
    s as i32
}

/// A `u64` from the store's API as an SQL `BIGINT` (saturating).
pub(crate) fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A `BIGINT` byte count as a `u64` (negative, which a consistent database never holds, is 0).
pub(crate) fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Reads a [`TaskRow`] from a row selected with [`COLUMNS`].
pub(crate) fn decode_row<'r, R>(r: &'r R) -> Result<TaskRow, StoreError>
where
    R: Row,
    usize: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    i32: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
    Option<Vec<u8>>: Decode<'r, R::Database> + Type<R::Database>,
{
    let id: String = r.try_get(0)?;
    let state: i32 = r.try_get(3)?;
    let Some(state) = TaskState::from_number(i64::from(state)) else {
        return Err(StoreError::Corrupt(id, format!("unknown state {state}")));
    };
    // NULL only when the shared text a body refers to is gone (an operator's edit).
    let body: Option<Vec<u8>> = r.try_get(8)?;
    let Some(body) = body else {
        return Err(StoreError::Corrupt(
            id,
            "its body refers to a shared text that is not stored".into(),
        ));
    };
    Ok(TaskRow {
        context_id: r.try_get(1)?,
        owner: r.try_get(2)?,
        state,
        updated_ms: r.try_get(4)?,
        finished_ms: r.try_get(5)?,
        flags: Flags::from_bits(r.try_get(6)?),
        version: r.try_get(7)?,
        counts_as_running: false,
        body: crate::row::Body::json(Bytes::from(body)),
        id,
    })
}

/// The member of a stored config's JSON that names a version other than 1.0. Absent means 1.0,
/// so rows written before versions were recorded read as they were meant, and a replica that
/// does not know the member still reads the config (A2A readers ignore unknown members).
const PUSH_VERSION_MEMBER: &str = "a2aVersion";

/// The stored bytes of a push notification config: the config's JSON, plus
/// [`PUSH_VERSION_MEMBER`] when it was registered in A2A 0.3.
pub(crate) fn encode_push(r: &PushRegistration) -> Result<Vec<u8>, StoreError> {
    let fail = |e: serde_json::Error| StoreError::Database(format!("push config: {e}"));
    let mut v = serde_json::to_value(&r.config).map_err(fail)?;
    if let (WireVersion::V0_3, Some(o)) = (r.version, v.as_object_mut()) {
        o.insert(PUSH_VERSION_MEMBER.into(), r.version.as_str().into());
    }
    serde_json::to_vec(&v).map_err(fail)
}

/// A push notification config read back from its stored JSON.
pub(crate) fn decode_push(task_id: &str, body: &[u8]) -> Result<PushRegistration, StoreError> {
    let corrupt = |e: String| {
        StoreError::Corrupt(
            task_id.to_string(),
            format!("push notification config: {e}"),
        )
    };
    let mut v: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| corrupt(e.to_string()))?;
    let version = match v
        .as_object_mut()
        .and_then(|o| o.remove(PUSH_VERSION_MEMBER))
    {
        None => WireVersion::V1_0,
        Some(serde_json::Value::String(s)) => WireVersion::parse(&s)
            .filter(|_| !s.is_empty())
            .ok_or_else(|| corrupt(format!("unknown A2A version {s:?}")))?,
        Some(other) => return Err(corrupt(format!("A2A version is not a string: {other}"))),
    };
    let config: TaskPushNotificationConfig =
        serde_json::from_value(v).map_err(|e| corrupt(e.to_string()))?;
    Ok(PushRegistration { config, version })
}

#[cfg(feature = "postgres")] // LISTEN/NOTIFY payloads: PostgreSQL only.
/// Largest notification payload sent with its event; larger events travel as a resync.
/// PostgreSQL refuses payloads of 8,000 bytes or more.
pub(crate) const NOTIFY_MAX: usize = 7_900;

#[cfg(feature = "postgres")] // LISTEN/NOTIFY payloads: PostgreSQL only.
/// The `pg_notify` payload of an accepted update: `{"id","v","e"}` with the event when it
/// fits, `{"id","v"}` (a resync) when it does not or there is no event.
pub(crate) fn notify_payload(id: &str, version: i64, event: Option<&StreamResponse>) -> String {
    if let Some(ev) = event {
        if let Ok(e) = serde_json::to_value(ev) {
            let full = serde_json::json!({"id": id, "v": version, "e": e}).to_string();
            if full.len() < NOTIFY_MAX {
                return full;
            }
        }
    }
    serde_json::json!({"id": id, "v": version}).to_string()
}

#[cfg(feature = "postgres")] // LISTEN/NOTIFY payloads: PostgreSQL only.
/// The task id and hub event of a notification payload; `None` if it is not one of ours.
pub(crate) fn parse_payload(payload: &str) -> Option<(String, HubEvent)> {
    let mut v: serde_json::Value = serde_json::from_str(payload).ok()?;
    let id = v.get("id")?.as_str()?.to_string();
    let version = v.get("v")?.as_i64()?;
    let ev = match v.get_mut("e").map(serde_json::Value::take) {
        // An event this build cannot read (a newer replica's) still tells its version.
        Some(e) => match serde_json::from_value::<StreamResponse>(e) {
            Ok(event) => HubEvent::Event { version, event },
            Err(_) => HubEvent::Resync { version },
        },
        None => HubEvent::Resync { version },
    };
    Some((id, ev))
}

#[cfg(feature = "postgres")] // driver messages of a URL with a password: PostgreSQL only.
/// `msg` with the password of `url` (raw and percent-decoded) replaced by `***`: driver
/// messages are not supposed to echo a URL, but nothing with a password may reach a log.
pub(crate) fn scrub(msg: String, url: &str) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return msg;
    };
    let Some(pw) = u.password().filter(|p| !p.is_empty()) else {
        return msg;
    };
    let mut out = msg.replace(pw, "***");
    if let Ok(decoded) = percent_decode(pw) {
        if !decoded.is_empty() {
            out = out.replace(&decoded, "***");
        }
    }
    out
}

#[cfg(feature = "postgres")] // driver messages of a URL with a password: PostgreSQL only.
fn percent_decode(s: &str) -> Result<String, std::string::FromUtf8Error> {
    let hex = |c: Option<&u8>| c.and_then(|c| (*c as char).to_digit(16));
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            if let (Some(h), Some(l)) = (hex(b.get(i + 1)), hex(b.get(i + 2))) {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    String::from_utf8(out)
}

#[cfg(all(test, feature = "postgres"))]
mod tests {
    use super::*;

    #[test]
    fn payloads_round_trip_and_large_events_resync() {
        use skillgate_a2a::{TaskStatus, TaskStatusUpdateEvent};
        let ev = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t1".into(),
            status: TaskStatus {
                state: TaskState::Working,
                ..Default::default()
            },
            ..Default::default()
        });
        let p = notify_payload("t1", 3, Some(&ev));
        match parse_payload(&p) {
            Some((id, HubEvent::Event { version: 3, event })) => {
                assert_eq!(id, "t1");
                assert_eq!(event, ev);
            }
            other => panic!("unexpected {other:?}"),
        }
        let big = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "x".repeat(9000),
            ..Default::default()
        });
        let p = notify_payload("t1", 4, Some(&big));
        assert!(p.len() < 100);
        assert!(matches!(
            parse_payload(&p),
            Some((_, HubEvent::Resync { version: 4 }))
        ));
        assert!(parse_payload("not json").is_none());
    }

    #[test]
    fn scrubs_passwords() {
        let url = "postgres://u:p%40ss@h/db";
        assert_eq!(scrub("a p%40ss b p@ss".into(), url), "a *** b ***");
        assert_eq!(scrub("nothing".into(), "postgres://u@h/db"), "nothing");
    }
}
