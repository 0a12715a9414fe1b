//! A2A 0.3 ProtoJSON (the HTTP+JSON binding): golden tests from exchanges captured between
//! a2a-sdk 0.3.26's REST client and its REST server (2026-12-04, `docs/a2a-0.3.md` 4.1 item 7),
//! hostile inputs (4.5), resource names and the error table (1.12).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use serde_json::{json, Value};
use skillgate_a2a::v03::rest::{self, ConfigName, ErrorBody};
use skillgate_a2a::v03::{pj, translate::pj as t};
use skillgate_a2a::*;

/// `POST /v1/message:send` as a2a-sdk 0.3.26's REST client wrote it (integers as doubles).
const CAPTURED_SEND: &str = r#"{"message":{"messageId":"c4d3","role":"ROLE_USER","content":[{"data":{"data":{"arguments":{"k":1.0},"skill":"describe_skill"}}}]},"configuration":{"blocking":true}}"#;

/// Its answer from a2a-sdk 0.3.26's REST server (bytes double-encoded, history metadata `{}`).
const CAPTURED_ANSWER: &str = r#"{"task":{"id":"ed4a","contextId":"cac7","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"3e77","name":"result","parts":[{"data":{"data":{"x":1.5,"n":1.0}}}]},{"artifactId":"cb50","name":"file","parts":[{"file":{"fileWithBytes":"YUdrPQ==","mimeType":"text/plain","name":"a.txt"}}]}],"history":[{"messageId":"c4d3","contextId":"cac7","taskId":"ed4a","role":"ROLE_USER","content":[{"data":{"data":{"arguments":{"k":1.0},"skill":"describe_skill"}}}],"metadata":{}}]}}"#;

/// The create body of `POST /v1/tasks/{id}/pushNotificationConfigs` (a2a-sdk 0.3.26 client).
const CAPTURED_CREATE: &str = r#"{"parent":"tasks/ed4a","configId":"p1","config":{"name":"tasks/ed4a/pushNotificationConfigs/p1","pushNotificationConfig":{"id":"p1","url":"https://example.com/h","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"cred"}}}}"#;

fn read<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
    serde_json::from_str(s).map_err(|e| e.to_string())
}

#[test]
fn captured_send_reads_as_the_1_0_request_and_ours_is_the_same_shape() {
    let wire: pj::SendMessageRequest = read(CAPTURED_SEND).unwrap();
    let got = t::send_message_request_from_pj(wire).unwrap();
    let expected = SendMessageRequest {
        message: Message {
            message_id: "c4d3".into(),
            role: Role::User,
            parts: vec![Part::data(
                json!({"arguments":{"k":1.0},"skill":"describe_skill"}),
            )],
            ..Default::default()
        },
        configuration: None,
        ..Default::default()
    };
    assert_eq!(got, expected);
    let ours = serde_json::to_value(t::send_message_request_to_pj(&expected).unwrap()).unwrap();
    let mut theirs: Value = serde_json::from_str(CAPTURED_SEND).unwrap();
    // We write `acceptedOutputModes: []` explicitly; a2a-sdk leaves the empty list out.
    theirs["configuration"]["acceptedOutputModes"] = json!([]);
    assert_eq!(ours, theirs);
}

#[test]
fn captured_answer_reads_as_the_1_0_task() {
    let wire: pj::SendMessageResponse = read(CAPTURED_ANSWER).unwrap();
    let SendMessageResponse::Task(task) = t::send_message_response_from_pj(wire).unwrap() else {
        panic!("not a task");
    };
    assert_eq!(task.id, "ed4a");
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.artifacts.len(), 2);
    assert_eq!(
        task.artifacts[0].parts[0].content,
        PartContent::Data(json!({"x":1.5,"n":1.0}))
    );
    assert_eq!(task.artifacts[0].parts[0].media_type, "application/json");
    // The base64 text is kept as received: a2a-sdk 0.3's double encoding is its own (2).
    assert_eq!(
        task.artifacts[1].parts[0].content,
        PartContent::Raw("YUdrPQ==".into())
    );
    assert_eq!(task.artifacts[1].parts[0].filename, "a.txt");
    assert_eq!(task.history[0].metadata, Some(Default::default()));
}

#[test]
fn captured_stream_events_read_in_order() {
    let events = [
        r#"{"task":{"id":"99ae","contextId":"eb38","status":{"state":"TASK_STATE_SUBMITTED"},"history":[{"messageId":"m2","contextId":"eb38","taskId":"99ae","role":"ROLE_USER","content":[{"text":"hi"}],"metadata":{}}]}}"#,
        r#"{"statusUpdate":{"taskId":"99ae","contextId":"eb38","status":{"state":"TASK_STATE_WORKING"}}}"#,
        r#"{"artifactUpdate":{"taskId":"99ae","contextId":"eb38","artifact":{"artifactId":"e469","name":"result","parts":[{"data":{"data":{"x":1.5,"n":1.0}}}]}}}"#,
        r#"{"statusUpdate":{"taskId":"99ae","contextId":"eb38","status":{"state":"TASK_STATE_COMPLETED"},"final":true}}"#,
    ];
    let got: Vec<StreamResponse> = events
        .iter()
        .map(|e| t::stream_response_from_pj(read(e).unwrap()).unwrap())
        .collect();
    assert!(matches!(&got[0], StreamResponse::Task(t) if t.status.state == TaskState::Submitted));
    assert!(matches!(&got[2], StreamResponse::ArtifactUpdate(a) if !a.append && !a.last_chunk));
    let StreamResponse::StatusUpdate(last) = &got[3] else {
        panic!("{:?}", got[3]);
    };
    assert_eq!(last.status.state, TaskState::Completed);
    // Written back: the same wrapper, and `final` from the state.
    let back = serde_json::to_value(t::stream_response_to_pj(&got[3]).unwrap()).unwrap();
    assert_eq!(back, serde_json::from_str::<Value>(events[3]).unwrap());
}

#[test]
fn captured_push_config_bodies_read_as_the_1_0_config() {
    let expected = TaskPushNotificationConfig {
        id: "p1".into(),
        task_id: "ed4a".into(),
        url: "https://example.com/h".into(),
        token: "tok".into(),
        authentication: Some(AuthenticationInfo {
            scheme: "Bearer".into(),
            credentials: "cred".into(),
        }),
        ..Default::default()
    };
    let body: Value = serde_json::from_str(CAPTURED_CREATE).unwrap();
    assert_eq!(
        t::create_push_config_from_pj(body.clone(), "ed4a").unwrap(),
        expected
    );
    assert_eq!(
        serde_json::to_value(t::create_push_config_to_pj(&expected)).unwrap(),
        body
    );
    // The bare PJ config (@a2a-js/sdk 0.3.14's client) reads the same.
    let bare = body["config"].clone();
    assert_eq!(
        t::create_push_config_from_pj(bare, "ed4a").unwrap(),
        expected
    );
    // The 0.3 JSON config is not a ProtoJSON body: `taskId` is an unknown member here.
    let json03 = json!({"taskId":"ed4a","pushNotificationConfig":{"url":"https://example.com/h"}});
    let e = t::create_push_config_from_pj(json03, "ed4a").unwrap_err();
    assert!(e.to_string().contains("taskId"), "{e}");
    // A body naming another task than the path is refused.
    let e = t::create_push_config_from_pj(body, "other").unwrap_err();
    assert!(e.to_string().contains("parent"), "{e}");
}

#[test]
fn states_and_roles_use_the_proto_spellings() {
    let task =
        |state: &str| format!(r#"{{"id":"t","contextId":"c","status":{{"state":"{state}"}}}}"#);
    let got: pj::Task = read(&task("TASK_STATE_CANCELLED")).unwrap();
    assert_eq!(
        t::task_from_pj(got).unwrap().status.state,
        TaskState::Canceled
    );
    // The 1.0 spelling (one `l`) and the 0.3 JSON one are not proto names.
    for wrong in ["TASK_STATE_CANCELED", "canceled", "completed", ""] {
        let e = read::<pj::Task>(&task(wrong)).unwrap_err();
        assert!(e.contains("TASK_STATE_CANCELLED"), "{wrong}: {e}");
    }
    // Numbers are proto enum values.
    let got: pj::Task = read(r#"{"id":"t","contextId":"c","status":{"state":3}}"#).unwrap();
    assert_eq!(got.status.state, pj::TaskState::Completed);
    let written = Task {
        id: "t".into(),
        context_id: "c".into(),
        status: TaskStatus {
            state: TaskState::Canceled,
            ..Default::default()
        },
        ..Default::default()
    };
    let v = serde_json::to_value(t::task_to_pj(&written).unwrap()).unwrap();
    assert_eq!(v["status"]["state"], "TASK_STATE_CANCELLED");
    let m: pj::Message =
        read(r#"{"messageId":"m","role":"ROLE_UNSPECIFIED","content":[]}"#).unwrap();
    let e = t::message_from_pj(m).unwrap_err();
    assert_eq!(e.at, "role");
    assert!(read::<pj::Message>(r#"{"messageId":"m","role":"user","content":[]}"#).is_err());
}

#[test]
fn hostile_bodies_are_typed_errors() {
    for (body, needle) in [
        // Unknown members: a 0.3 JSON message sent to the PJ binding, and a stray field.
        (
            r#"{"message":{"kind":"message","messageId":"m","role":"ROLE_USER","parts":[]}}"#,
            "unknown field",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[]},"tenant":"x"}"#,
            "unknown field",
        ),
        // Two content members, none, a kind, data that is not a Struct.
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"a","data":{"data":{}}}]}}"#,
            "exactly one",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[{}]}}"#,
            "exactly one",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[{"kind":"text","text":"a"}]}}"#,
            "unknown field",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[{"data":{"data":[1]}}]}}"#,
            "Struct",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[{"file":{"fileWithUri":"u","fileWithBytes":"b"}}]}}"#,
            "both",
        ),
        // Duplicate member under its two ProtoJSON names.
        (
            r#"{"message":{"messageId":"m","message_id":"n","role":"ROLE_USER","content":[]}}"#,
            "duplicate field",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[]},"request":{"messageId":"m","role":"ROLE_USER","content":[]}}"#,
            "duplicate field",
        ),
        // Non-boolean blocking, non-integer historyLength.
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[]},"configuration":{"blocking":"yes"}}"#,
            "boolean",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[]},"configuration":{"historyLength":1.5}}"#,
            "integer",
        ),
        (
            r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[]},"configuration":{"historyLength":99999999999}}"#,
            "int32",
        ),
    ] {
        let e = read::<pj::SendMessageRequest>(body).unwrap_err();
        assert!(e.contains(needle), "{body}: {e}");
    }
    // A negative historyLength parses and is refused by the one historyLength rule.
    let neg: pj::SendMessageRequest = read(r#"{"message":{"messageId":"m","role":"ROLE_USER","content":[]},"configuration":{"historyLength":-1}}"#).unwrap();
    assert!(t::send_message_request_from_pj(neg)
        .unwrap_err()
        .at
        .contains("historyLength"));
    // Deep nesting: a typed error from the parser, no stack overflow.
    let deep = format!(
        r#"{{"message":{{"messageId":"m","role":"ROLE_USER","content":[{{"data":{{"data":{{"a":{}1{}}}}}}}]}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert!(read::<pj::SendMessageRequest>(&deep)
        .unwrap_err()
        .contains("recursion"));
    // Ten thousand schemes: read, and only the first kept (both SDKs do the same).
    let schemes: Vec<String> = (0..10_000).map(|i| format!("s{i}")).collect();
    let c = json!({"pushNotificationConfig":{"url":"https://h/w","authentication":{"schemes":schemes}}});
    let got = t::create_push_config_from_pj(c, "t").unwrap();
    assert_eq!(got.authentication.unwrap().scheme, "s0");
}

#[test]
fn a_forged_compat_marker_on_a_real_object_changes_nothing() {
    let part: pj::Part =
        read(r#"{"data":{"data":{"value":1,"other":2}},"metadata":{"data_part_compat":true}}"#)
            .unwrap();
    let p = t::part_from_pj(part).unwrap();
    assert_eq!(p.content, PartContent::Data(json!({"value":1,"other":2})));
    let wrapped: pj::Part =
        read(r#"{"data":{"data":{"value":[1,2]}},"metadata":{"data_part_compat":true}}"#).unwrap();
    let p = t::part_from_pj(wrapped).unwrap();
    assert_eq!(p.content, PartContent::Data(json!([1, 2])));
    assert_eq!(p.metadata, None);
}

#[test]
fn resource_names_are_exact() {
    assert_eq!(rest::parse_task_name("tasks/abc").unwrap(), "abc");
    for bad in ["tasks/", "tasks/a/b", "task/a", "tasks/..", "", "tasks"] {
        assert!(rest::parse_task_name(bad).is_err(), "{bad}");
    }
    let n = ConfigName::parse("tasks/t/pushNotificationConfigs/c").unwrap();
    assert_eq!((n.task_id.as_str(), n.config_id.as_str()), ("t", "c"));
    assert_eq!(n.render(), "tasks/t/pushNotificationConfigs/c");
    assert_eq!(
        ConfigName::parse("tasks/t/pushNotificationConfigs")
            .unwrap()
            .config_id,
        ""
    );
    for bad in [
        "tasks/a/pushNotificationConfigs/b/c",
        "tasks//pushNotificationConfigs/b",
        "tasks/a/pushNotificationConfigs/",
        "tasks/../pushNotificationConfigs/b",
        "tasks/a/other/b",
    ] {
        assert!(ConfigName::parse(bad).is_err(), "{bad}");
    }
    let wire: pj::TaskPushNotificationConfig = read(r#"{"name":"tasks/x/pushNotificationConfigs/c","pushNotificationConfig":{"url":"https://h/w"}}"#).unwrap();
    assert!(
        t::push_config_from_pj(wire, "t").is_err(),
        "another task's name"
    );
    assert!(
        rest::is_v03_path("/v1/message:send")
            && !rest::is_v03_path("/v10/x")
            && !rest::is_v03_path("/message:send")
    );
}

#[test]
fn errors_use_the_a2a_sdk_0_3_statuses_and_read_back() {
    let table = [
        (A2aError::TaskNotFound, 404),
        (A2aError::TaskNotCancelable, 409),
        (A2aError::InvalidParams, 422),
        (A2aError::UnsupportedOperation, 501),
        (A2aError::PushNotificationNotSupported, 501),
        (A2aError::ContentTypeNotSupported, 415),
        (A2aError::InvalidAgentResponse, 502),
        (A2aError::InternalError, 500),
        (A2aError::ExtendedAgentCardNotConfigured, 404),
        (A2aError::ExtensionSupportRequired, 400),
        (A2aError::VersionNotSupported, 400),
        (A2aError::ParseError, 400),
    ];
    for (e, status) in table {
        assert_eq!(rest::error_status(e), status, "{e}");
        let body = ErrorBody::new(e, "m");
        assert_eq!(body.error(status), Some(e));
    }
    // a2a-sdk 0.3.26's `{"message"}` body: the status decides.
    let theirs: ErrorBody = read(r#"{"message":"Task not found"}"#).unwrap();
    assert_eq!(theirs.error(404), Some(A2aError::TaskNotFound));
    assert_eq!(theirs.error(409), Some(A2aError::TaskNotCancelable));
    assert_eq!(theirs.error(418), None);
}

/// `POST /v1/message:send` as @a2a-js/sdk 0.3.14's RestTransport wrote it (captured
/// 2026-12-04): integers stay integers, the file part has no `name` (its proto lacks one), and
/// `blocking: false` is left out of `configuration` (proto3 drops a false bool).
const JS_SEND: &str = r#"{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"data":{"data":{"skill":"describe_skill","arguments":{"k":1}}}},{"file":{"fileWithBytes":"aGk=","mimeType":"text/plain"}},{"text":"hi"}]},"configuration":{"historyLength":2,"blocking":true}}"#;
const JS_SEND_NON_BLOCKING: &str = r#"{"message":{"messageId":"m2","role":"ROLE_USER","content":[{"text":"x"}]},"configuration":{}}"#;
const JS_PUSH: &str = r#"{"name":"tasks/t1/pushNotificationConfigs/p1","pushNotificationConfig":{"id":"p1","url":"https://example.com/h","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"cred"}}}"#;

#[test]
fn captured_a2a_js_rest_bodies_read_as_the_1_0_requests() {
    let r = t::send_message_request_from_pj(read(JS_SEND).unwrap()).unwrap();
    let parts = &r.message.parts;
    assert_eq!(
        parts[0].content,
        PartContent::Data(json!({"skill":"describe_skill","arguments":{"k":1}}))
    );
    assert_eq!(parts[1].content, PartContent::Raw("aGk=".into()));
    assert_eq!(
        (parts[1].media_type.as_str(), parts[1].filename.as_str()),
        ("text/plain", "")
    );
    assert_eq!(parts[2].content, PartContent::Text("hi".into()));
    let c = r.configuration.unwrap();
    assert_eq!(c.history_length, Some(2));
    assert!(!c.return_immediately);

    // `{"configuration":{}}` is a non-blocking send in ProtoJSON.
    let r = t::send_message_request_from_pj(read(JS_SEND_NON_BLOCKING).unwrap()).unwrap();
    assert!(r.configuration.unwrap().return_immediately);

    let c = t::create_push_config_from_pj(serde_json::from_str(JS_PUSH).unwrap(), "t1").unwrap();
    assert_eq!(
        (c.task_id.as_str(), c.id.as_str(), c.token.as_str()),
        ("t1", "p1", "tok")
    );
    assert_eq!(c.authentication.unwrap().scheme, "Bearer");
}
