//! A2A 0.3 JSON-RPC dialect: golden tests from the exchanges captured with a2a-sdk 0.3.26 and
//! 1.3.0 (`docs/a2a-0.3.md` 4.1), hostile inputs (4.5), versions and method names.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use serde_json::{json, Value};
use skillgate_a2a::v03::{self, json as j, rpc, translate as t};
use skillgate_a2a::*;

fn params_err(method: &str, params: Value) -> String {
    match rpc::read_request(method, Some(params)) {
        Err(e) => {
            assert_eq!(e.a2a_error(), A2aError::InvalidParams, "{e}");
            assert!(e.to_jsonrpc().data.is_none());
            e.to_string()
        }
        Ok(r) => panic!("accepted: {r:?}"),
    }
}

fn send_params(part: Value) -> Value {
    json!({"message": {"kind":"message","messageId":"m","role":"user","parts":[part]}})
}

// ------------------------------------------------------------------ capture 3: message/send

const CAPTURED_SEND: &str = r#"{"configuration":{"acceptedOutputModes":[],"blocking":true},"message":{"kind":"message","messageId":"c4d3","parts":[{"data":{"skill":"describe_skill","arguments":{"k":1}},"kind":"data"}],"role":"user"}}"#;

#[test]
fn captured_message_send_reads_as_the_1_0_request() {
    let params: Value = serde_json::from_str(CAPTURED_SEND).unwrap();
    let req = rpc::read_request(v03::methods::MESSAGE_SEND, Some(params)).unwrap();
    let expected = SendMessageRequest {
        message: Message {
            message_id: "c4d3".into(),
            role: Role::User,
            parts: vec![Part::data(
                json!({"skill":"describe_skill","arguments":{"k":1}}),
            )],
            ..Default::default()
        },
        // `blocking: true` and no output constraint are the 1.0 defaults.
        configuration: None,
        ..Default::default()
    };
    assert_eq!(req, rpc::Request::SendMessage(expected.clone()));
    assert_eq!(req.v1_method(), methods::SEND_MESSAGE);
    // And our client writes exactly what a2a-sdk 0.3.26 sent.
    let (method, written) = rpc::write_request(&rpc::Request::SendMessage(expected)).unwrap();
    assert_eq!(method, "message/send");
    assert_eq!(
        written.unwrap(),
        serde_json::from_str::<Value>(CAPTURED_SEND).unwrap()
    );
}

fn captured_task_v03() -> Value {
    json!({"artifacts":[
        {"artifactId":"42ba","name":"result","parts":[{"data":{"n":1,"x":1.5},"kind":"data"}]},
        {"artifactId":"0568","name":"file","parts":[{"file":{"bytes":"aGk=","mimeType":"text/plain","name":"a.txt"},"kind":"file"}]}],
      "contextId":"cc44",
      "history":[{"kind":"message","messageId":"c4d3","parts":[{"kind":"text","text":"hi"}],"role":"user","contextId":"cc44","taskId":"78d9"}],
      "id":"78d9","kind":"task",
      "status":{"state":"completed","timestamp":"2026-12-03T23:54:46.969474+00:00"}})
}

fn captured_task_v1() -> Task {
    let mut file = Part::from_content(PartContent::Raw("aGk=".into()));
    file.filename = "a.txt".into();
    file.media_type = "text/plain".into();
    Task {
        id: "78d9".into(),
        context_id: "cc44".into(),
        status: TaskStatus {
            state: TaskState::Completed,
            message: None,
            timestamp: Some("2026-12-03T23:54:46.969Z".into()),
        },
        artifacts: vec![
            Artifact {
                artifact_id: "42ba".into(),
                name: "result".into(),
                parts: vec![Part::data(json!({"n":1,"x":1.5}))],
                ..Default::default()
            },
            Artifact {
                artifact_id: "0568".into(),
                name: "file".into(),
                parts: vec![file],
                ..Default::default()
            },
        ],
        history: vec![Message {
            message_id: "c4d3".into(),
            context_id: "cc44".into(),
            task_id: "78d9".into(),
            role: Role::User,
            parts: vec![Part::text("hi")],
            ..Default::default()
        }],
        metadata: None,
    }
}

#[test]
fn captured_send_result_reads_as_a_1_0_task_with_z_timestamp() {
    let got = rpc::read_send_message_result(captured_task_v03()).unwrap();
    assert_eq!(got, SendMessageResponse::Task(captured_task_v1()));
    let n = match &got {
        SendMessageResponse::Task(t) => t.artifacts[0].parts[0].as_data().unwrap()["n"].clone(),
        _ => unreachable!(),
    };
    assert!(n.is_u64(), "integers stay integers on JSON-RPC");
}

#[test]
fn a_1_0_task_is_written_as_the_bare_0_3_task() {
    let v = rpc::write_send_message_result(&SendMessageResponse::Task(captured_task_v1())).unwrap();
    let mut expected = captured_task_v03();
    expected["status"]["timestamp"] = json!("2026-12-03T23:54:46.969Z");
    assert_eq!(v, expected);
    let m = rpc::write_send_message_result(&SendMessageResponse::Message(
        captured_task_v1().history[0].clone(),
    ))
    .unwrap();
    assert_eq!(m["kind"], "message");
    assert_eq!(m["role"], "user");
}

// ------------------------------------------------------------------ capture 5: stream events

#[test]
fn captured_status_update_reads_and_final_follows_the_state() {
    let ev = json!({"contextId":"d0a8","final":false,"kind":"status-update","status":{"state":"working","timestamp":"2026-12-03T23:54:46.5+00:00"},"taskId":"d7f2"});
    let got = rpc::read_stream_event(ev.clone()).unwrap();
    let StreamResponse::StatusUpdate(u) = &got else {
        panic!("{got:?}")
    };
    assert_eq!(u.status.state, TaskState::Working);
    assert_eq!(
        u.status.timestamp.as_deref(),
        Some("2026-12-03T23:54:46.500Z")
    );
    let mut back = ev;
    back["status"]["timestamp"] = json!("2026-12-03T23:54:46.500Z");
    assert_eq!(rpc::write_stream_event(&got).unwrap(), back);
    // `final` on read is ignored: the state decides.
    let lying = json!({"contextId":"c","final":true,"kind":"status-update","status":{"state":"working"},"taskId":"t"});
    assert_eq!(rpc::read_stream_event(lying).unwrap(), rpc::read_stream_event(json!({"contextId":"c","kind":"status-update","status":{"state":"working"},"taskId":"t"})).unwrap());
    for (state, fin) in [
        (TaskState::Submitted, false),
        (TaskState::Working, false),
        (TaskState::Completed, true),
        (TaskState::Failed, true),
        (TaskState::Canceled, true),
        (TaskState::Rejected, true),
        (TaskState::InputRequired, true),
        (TaskState::AuthRequired, true),
    ] {
        let e = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state,
                ..Default::default()
            },
            metadata: None,
        });
        assert_eq!(
            rpc::write_stream_event(&e).unwrap()["final"],
            json!(fin),
            "{state}"
        );
    }
}

#[test]
fn artifact_update_and_task_events_are_bare_objects_with_kind() {
    let e = StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: "t".into(),
        context_id: "c".into(),
        artifact: Artifact {
            artifact_id: "a".into(),
            parts: vec![Part::text("x")],
            ..Default::default()
        },
        append: true,
        last_chunk: false,
        metadata: None,
    });
    let v = rpc::write_stream_event(&e).unwrap();
    assert_eq!(
        v,
        json!({"kind":"artifact-update","taskId":"t","contextId":"c","append":true,
        "artifact":{"artifactId":"a","parts":[{"kind":"text","text":"x"}]}})
    );
    assert_eq!(rpc::read_stream_event(v).unwrap(), e);
    let task = rpc::write_stream_event(&StreamResponse::Task(captured_task_v1())).unwrap();
    assert_eq!(task["kind"], "task");
    // Without `kind`, a peer's event is told apart by its members.
    let no_kind = json!({"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true});
    assert_eq!(rpc::read_stream_event(no_kind).unwrap(), e);
}

// ------------------------------------------------------------------ capture 6: errors

#[test]
fn the_0_3_error_object_has_no_data() {
    let e = v03::jsonrpc_error(A2aError::TaskNotFound, "Task not found");
    assert_eq!(
        serde_json::to_value(&e).unwrap(),
        json!({"code":-32001,"message":"Task not found"})
    );
    let stripped = v03::error::to_v03_error(A2aError::VersionNotSupported.to_jsonrpc("use 1.0"));
    assert_eq!(
        serde_json::to_value(&stripped).unwrap(),
        json!({"code":-32009,"message":"use 1.0"})
    );
    let resp = JsonRpcResponse::error(JsonRpcId::String("e655".into()), e);
    assert_eq!(
        serde_json::to_value(&resp).unwrap(),
        json!({"error":{"code":-32001,"message":"Task not found"},"id":"e655","jsonrpc":"2.0"})
    );
    let unknown = rpc::read_request("tasks/list", Some(json!({}))).unwrap_err();
    assert_eq!(unknown.a2a_error(), A2aError::MethodNotFound);
    assert_eq!(unknown.to_jsonrpc().code, -32601);
}

// ------------------------------------------------------------------ capture 9: wrapped data

#[test]
fn a_wrapped_list_from_a2a_sdk_1_3_unwraps_and_we_wrap_the_same_way() {
    let part: j::Part = serde_json::from_value(
        json!({"kind":"data","data":{"value":[1.0,2.0,3.0]},"metadata":{"data_part_compat":true}}),
    )
    .unwrap();
    let p = t::part_from_v03(part).unwrap();
    assert_eq!(p.as_data(), Some(&json!([1.0, 2.0, 3.0])));
    assert_eq!(p.metadata, None);
    assert_eq!(p.media_type, MEDIA_TYPE_JSON);
    let mut with_md = Part::data(json!("s"));
    with_md.metadata = Some(json!({"k":1}).as_object().unwrap().clone());
    assert_eq!(
        serde_json::to_value(t::part_to_v03(&with_md)).unwrap(),
        json!({"kind":"data","data":{"value":"s"},"metadata":{"k":1,"data_part_compat":true}})
    );
    let back = t::part_from_v03(t::part_to_v03(&with_md)).unwrap();
    assert_eq!(back, with_md);
}

#[test]
fn a_shared_document_stays_shared_when_written_as_0_3() {
    let doc =
        SharedJson::new(json!({"interface_digest":"sha256:00","skill_interface":{"a":[1,2.5]}}));
    let task = Task {
        id: "t".into(),
        context_id: "c".into(),
        status: TaskStatus {
            state: TaskState::Completed,
            ..Default::default()
        },
        artifacts: vec![Artifact {
            artifact_id: "a".into(),
            parts: vec![Part::shared_data(doc.clone())],
            ..Default::default()
        }],
        ..Default::default()
    };
    let typed = t::send_message_response_to_v03(&SendMessageResponse::Task(task)).unwrap();
    let j::SendMessageResult::Task(tk) = &typed else {
        panic!()
    };
    let part = &tk.artifacts.as_ref().unwrap()[0].parts[0];
    assert_eq!(
        part.content,
        j::PartBody::Data(j::DataContent::Shared(doc.clone()))
    );
    let text = serde_json::to_string(&JsonRpcSuccess {
        id: &JsonRpcId::Null,
        result: &typed,
    })
    .unwrap();
    assert!(text.contains(&format!("\"data\":{}", doc.text())), "{text}");
    // A shared non-object is wrapped like any other.
    let wrapped = t::part_to_v03(&Part::shared_data(SharedJson::new(json!([1]))));
    assert_eq!(
        serde_json::to_value(wrapped).unwrap()["data"],
        json!({"value":[1]})
    );
}

// ------------------------------------------------------------------ params of every method

#[test]
fn every_method_reads_into_its_1_0_request_and_back() {
    use rpc::Request as R;
    let cases = vec![
        (
            json!({"id":"t","historyLength":0,"metadata":{"x":1}}),
            "tasks/get",
            R::GetTask(GetTaskRequest {
                id: "t".into(),
                history_length: None,
                ..Default::default()
            }),
        ),
        (
            json!({"id":"t","historyLength":3}),
            "tasks/get",
            R::GetTask(GetTaskRequest {
                id: "t".into(),
                history_length: Some(3),
                ..Default::default()
            }),
        ),
        (
            json!({"id":"t","metadata":{"x":1}}),
            "tasks/cancel",
            R::CancelTask(CancelTaskRequest {
                id: "t".into(),
                metadata: Some(json!({"x":1}).as_object().unwrap().clone()),
                ..Default::default()
            }),
        ),
        (
            json!({"id":"t"}),
            "tasks/resubscribe",
            R::SubscribeToTask(SubscribeToTaskRequest {
                id: "t".into(),
                ..Default::default()
            }),
        ),
        (
            json!({"taskId":"t","pushNotificationConfig":{"id":"c","url":"https://h/w","token":"k","authentication":{"schemes":["Bearer","Basic"],"credentials":"s"}}}),
            "tasks/pushNotificationConfig/set",
            R::CreateTaskPushNotificationConfig(TaskPushNotificationConfig {
                id: "c".into(),
                task_id: "t".into(),
                url: "https://h/w".into(),
                token: "k".into(),
                authentication: Some(AuthenticationInfo {
                    scheme: "Bearer".into(),
                    credentials: "s".into(),
                }),
                ..Default::default()
            }),
        ),
        (
            json!({"id":"t","pushNotificationConfigId":"c"}),
            "tasks/pushNotificationConfig/get",
            R::GetTaskPushNotificationConfig(TaskPushNotificationConfigRef {
                task_id: "t".into(),
                id: "c".into(),
                ..Default::default()
            }),
        ),
        (
            json!({"id":"t"}),
            "tasks/pushNotificationConfig/get",
            R::GetTaskPushNotificationConfig(TaskPushNotificationConfigRef {
                task_id: "t".into(),
                id: String::new(),
                ..Default::default()
            }),
        ),
        (
            json!({"id":"t"}),
            "tasks/pushNotificationConfig/list",
            R::ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest {
                task_id: "t".into(),
                ..Default::default()
            }),
        ),
        (
            json!({"id":"t","pushNotificationConfigId":"c"}),
            "tasks/pushNotificationConfig/delete",
            R::DeleteTaskPushNotificationConfig(TaskPushNotificationConfigRef {
                task_id: "t".into(),
                id: "c".into(),
                ..Default::default()
            }),
        ),
    ];
    for (params, method, expected) in cases {
        let got = rpc::read_request(method, Some(params)).unwrap();
        assert_eq!(got, expected, "{method}");
        assert_eq!(got.v03_method(), method);
        assert_eq!(v03::methods::v1_method(method), Some(got.v1_method()));
        let (m, p) = rpc::write_request(&got).unwrap();
        assert_eq!(m, method);
        assert_eq!(rpc::read_request(m, p).unwrap(), got, "{method} round trip");
    }
    assert_eq!(
        rpc::read_request("agent/getAuthenticatedExtendedCard", None).unwrap(),
        R::GetExtendedAgentCard
    );
    assert_eq!(
        rpc::write_request(&R::GetExtendedAgentCard).unwrap(),
        ("agent/getAuthenticatedExtendedCard", None)
    );
}

#[test]
fn push_config_results_are_nested_and_list_is_a_bare_array() {
    let c = TaskPushNotificationConfig {
        id: "c".into(),
        task_id: "t".into(),
        url: "https://h/w".into(),
        authentication: Some(AuthenticationInfo {
            scheme: "Bearer".into(),
            credentials: String::new(),
        }),
        ..Default::default()
    };
    let v = rpc::write_push_config(&c).unwrap();
    assert_eq!(
        v,
        json!({"taskId":"t","pushNotificationConfig":{"id":"c","url":"https://h/w","authentication":{"schemes":["Bearer"]}}})
    );
    assert_eq!(rpc::read_push_config(v).unwrap(), c);
    let list = ListTaskPushNotificationConfigsResponse {
        configs: vec![c.clone(), c],
        next_page_token: String::new(),
    };
    let v = rpc::write_push_configs(&list).unwrap();
    assert!(v.as_array().is_some_and(|a| a.len() == 2));
    assert_eq!(rpc::read_push_configs(v).unwrap(), list);
    assert_eq!(rpc::write_delete_result(), Value::Null);
}

#[test]
fn send_configuration_polarity_history_and_push_nesting() {
    let read = |cfg: Value| {
        match rpc::read_request("message/send", Some(json!({"message":{"messageId":"m","role":"user","parts":[{"text":"x"}]},"configuration":cfg}))).unwrap() {
        rpc::Request::SendMessage(r) => r.configuration,
        other => panic!("{other:?}"),
    }
    };
    assert_eq!(read(json!({})), None, "absent blocking = blocking");
    assert_eq!(read(json!({"blocking":true})), None);
    assert!(read(json!({"blocking":false})).unwrap().return_immediately);
    assert_eq!(read(json!({"historyLength":0})), None, "0 = all in 0.3");
    assert_eq!(
        read(json!({"historyLength":5})).unwrap().history_length,
        Some(5)
    );
    let push = read(json!({"pushNotificationConfig":{"url":"https://h/w","authentication":{"schemes":["Bearer"]}}})).unwrap();
    let p = push.task_push_notification_config.unwrap();
    assert_eq!(
        (p.url.as_str(), p.authentication.unwrap().scheme.as_str()),
        ("https://h/w", "Bearer")
    );
    // Writing: blocking always explicit, Some(0) not sent.
    let req = SendMessageRequest {
        message: Message {
            message_id: "m".into(),
            role: Role::User,
            parts: vec![Part::text("x")],
            ..Default::default()
        },
        configuration: Some(SendMessageConfiguration {
            return_immediately: true,
            history_length: Some(0),
            ..Default::default()
        }),
        ..Default::default()
    };
    let (_, p) = rpc::write_request(&rpc::Request::SendMessage(req)).unwrap();
    assert_eq!(
        p.unwrap()["configuration"],
        json!({"acceptedOutputModes":[],"blocking":false})
    );
}

// ------------------------------------------------------------------ hostile inputs (4.5)

#[test]
fn parts_with_contradicting_kind_or_wrong_member_count_are_refused() {
    for (part, needle) in [
        (json!({"kind":"text","data":{"a":1}}), "kind \"text\""),
        (json!({"kind":"data","text":"x"}), "kind \"data\""),
        (
            json!({"kind":"text","text":"x","data":{"a":1}}),
            "exactly one",
        ),
        (json!({"text":"x","data":{"a":1}}), "found text, data"),
        (json!({"kind":"text"}), "found none"),
        (json!({"kind":"image","text":"x"}), "unknown part kind"),
        (
            json!({"kind":"data","data":[1,2]}),
            "must be a JSON object, not an array",
        ),
        (json!({"kind":"data","data":"s"}), "not a string"),
        (json!({"data":null}), "not null"),
        (json!({"text":5}), "`text` must be a string"),
        (
            json!({"kind":"file","file":{"bytes":"aGk=","uri":"https://x"}}),
            "both `bytes` and `uri`",
        ),
        (
            json!({"kind":"file","file":{"name":"a"}}),
            "`bytes` or `uri`",
        ),
    ] {
        let msg = params_err("message/send", send_params(part.clone()));
        assert!(msg.contains(needle), "{part}: {msg}");
    }
}

#[test]
fn a_forged_marker_on_a_real_object_is_not_unwrapped() {
    for (data, md) in [
        (
            json!({"value":1,"other":2}),
            json!({"data_part_compat":true}),
        ),
        (json!({"value":1}), json!({"data_part_compat":"true"})),
        (json!({"v":1}), json!({"data_part_compat":true})),
    ] {
        let part: j::Part =
            serde_json::from_value(json!({"kind":"data","data":data,"metadata":md})).unwrap();
        let p = t::part_from_v03(part).unwrap();
        assert_eq!(p.as_data(), Some(&data));
        assert_eq!(p.metadata.map(Value::Object), Some(md));
    }
}

#[test]
fn wrong_kinds_roles_states_and_types_are_refused() {
    let msg = |m: Value| params_err("message/send", json!({"message": m}));
    assert!(
        msg(json!({"kind":"task","messageId":"m","role":"user","parts":[]}))
            .contains("kind \"task\"")
    );
    assert!(msg(json!({"messageId":"m","role":"system","parts":[]})).contains("system"));
    assert!(msg(json!({"messageId":"m","role":"ROLE_USER","parts":[]})).contains("ROLE_USER"));
    let cfg = |c: Value| {
        params_err(
            "message/send",
            json!({"message":{"messageId":"m","role":"user","parts":[{"text":"x"}]},"configuration":c}),
        )
    };
    assert!(cfg(json!({"blocking":"yes"})).contains("boolean"));
    assert!(cfg(json!({"historyLength":-1})).contains("configuration.historyLength"));
    assert!(cfg(json!({"historyLength":1e12})).contains("int32"));
    assert!(cfg(json!({"historyLength":99999999999u64})).contains("int32"));
    assert!(
        cfg(json!({"pushNotificationConfig":{"url":"u","authentication":{"schemes":[]}}}))
            .contains("schemes")
    );
    assert!(
        params_err("tasks/get", json!({"id":"t","historyLength":-5})).contains("historyLength")
    );
    assert!(params_err("tasks/get", json!(["t"])).contains("must be an object"));
    assert!(params_err("tasks/get", json!({})).contains("id"));
    assert!(
        params_err("tasks/pushNotificationConfig/delete", json!({"id":"t"}))
            .contains("pushNotificationConfigId")
    );
    assert!(rpc::read_request("tasks/get", None).is_err());
    // Unknown state, and a state written in 1.0 spelling, on a result.
    for state in ["paused", "TASK_STATE_WORKING", "cancelled"] {
        let e =
            rpc::read_task(json!({"id":"t","contextId":"c","status":{"state":state}})).unwrap_err();
        assert!(e.to_string().contains(state), "{e}");
    }
    assert!(rpc::read_task(
        json!({"id":"t","contextId":"c","status":{"state":"working","timestamp":"yesterday"}})
    )
    .unwrap_err()
    .to_string()
    .contains("timestamp"));
    assert!(rpc::read_send_message_result(json!({"kind":"status-update"})).is_err());
    assert!(rpc::read_stream_event(
        json!({"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"role":"user"})
    )
    .is_ok());
    assert!(rpc::read_stream_event(json!({"foo":1})).is_err());
    assert!(rpc::read_stream_event(
        json!({"kind":"message","id":"t","contextId":"c","status":{"state":"working"}})
    )
    .is_err());
}

#[test]
fn a_repeated_member_is_refused() {
    let text = r#"{"messageId":"a","messageId":"b","role":"user","parts":[]}"#;
    assert!(serde_json::from_str::<j::Message>(text).is_err());
}

#[test]
fn unknown_state_reads_as_unspecified_and_unspecified_is_never_written() {
    let task =
        rpc::read_task(json!({"id":"t","contextId":"c","status":{"state":"unknown"}})).unwrap();
    assert_eq!(task.status.state, TaskState::Unspecified);
    let e = rpc::write_task(&task).unwrap_err();
    assert!(e.to_string().contains("TASK_STATE_UNSPECIFIED"), "{e}");
    let m = Message {
        message_id: "m".into(),
        ..Default::default()
    };
    assert!(
        rpc::write_send_message_result(&SendMessageResponse::Message(m))
            .unwrap_err()
            .to_string()
            .contains("ROLE_UNSPECIFIED")
    );
}

#[test]
fn error_paths_name_the_member() {
    let msg = params_err("tasks/get", json!({"id":"t","historyLength":-2}));
    assert_eq!(msg, "invalid params: historyLength: -2 is negative; use a count of messages, or leave it out for all");
    let e = rpc::read_task(json!({"id":"t","contextId":"c","status":{"state":"working"},"history":[{"messageId":"m","role":"user","parts":[]}, {"messageId":"n","role":"user","parts":[]}],
        "artifacts":[{"artifactId":"a","parts":[]}]})).unwrap();
    assert_eq!(e.history.len(), 2);
    let bad_ts = rpc::read_task(json!({"id":"t","contextId":"c","status":{"state":"working","message":{"messageId":"m","role":"agent","parts":[]},"timestamp":"2026-02-31T00:00:00Z"}})).unwrap_err();
    assert_eq!(bad_ts.at, "result.status.timestamp");
}

// ------------------------------------------------------------------ versions and methods

#[test]
fn version_strings() {
    use WireVersion::*;
    for (s, v) in [
        ("", Some(V0_3)),
        ("  ", Some(V0_3)),
        ("0.3", Some(V0_3)),
        ("0.3.0", Some(V0_3)),
        ("0.3.7", Some(V0_3)),
        (" 1.0 ", Some(V1_0)),
        ("1.0", Some(V1_0)),
        ("1.0.1", Some(V1_0)),
        ("1.1", Some(V1_0)),
        ("1.12.3", Some(V1_0)),
        ("0.2", None),
        ("0.2.5", None),
        ("2.0", None),
        ("1", None),
        ("01.0", None),
        ("1.00", None),
        ("1.0.0.0", None),
        ("0.3, 1.0", None),
        ("1.0,0.3", None),
        ("v1.0", None),
        ("1.x", None),
        ("1.-1", None),
        ("1..0", None),
        ("1.0.", None),
        ("+1.0", None),
        ("garbage", None),
        ("0.30", None),
        ("1.99999999999", None),
    ] {
        assert_eq!(WireVersion::parse(s), v, "{s:?}");
    }
    assert_eq!(V0_3.as_str(), "0.3");
    assert_eq!(V1_0.to_string(), "1.0");
}

#[test]
fn method_names_map_both_ways_and_list_tasks_has_none() {
    for (old, new) in v03::methods::METHODS {
        assert_eq!(v03::methods::v1_method(old), Some(new));
        assert_eq!(v03::methods::v03_method(new), Some(old));
        assert!(v03::methods::is_v03_method(old));
        assert!(!v03::methods::is_v03_method(new));
    }
    assert_eq!(
        v03::methods::v1_method("message/send"),
        Some(methods::SEND_MESSAGE)
    );
    assert_eq!(
        v03::methods::v1_method("tasks/resubscribe"),
        Some(methods::SUBSCRIBE_TO_TASK)
    );
    assert_eq!(v03::methods::v03_method(methods::LIST_TASKS), None);
    assert_eq!(v03::methods::v1_method("tasks/list"), None);
    assert!(v03::methods::is_streaming("message/stream"));
    assert!(!v03::methods::is_streaming("message/send"));
}
