//! Round-trips and ProtoJSON leniency of the A2A wire types.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use serde_json::{json, Value};
use skillgate_a2a::*;

fn rt<T: serde::Serialize + serde::de::DeserializeOwned>(v: Value) -> Value {
    let t: T = serde_json::from_value(v).unwrap();
    serde_json::to_value(&t).unwrap()
}

#[test]
fn minimal_card_round_trips_exactly() {
    let card = json!({"name":"x","description":"d","version":"0.1.0",
     "supportedInterfaces":[{"url":"http://127.0.0.1:8080/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
     "capabilities":{"streaming":true,"pushNotifications":false,"extensions":[{"uri":"https://example.com/ext/v1","params":{"a":1}}]},
     "securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},
     "securityRequirements":[{"schemes":{"bearer":{"list":[]}}}],
     "defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],
     "skills":[{"id":"describe_skill","name":"Describe skill","description":"d","tags":["meta"]}]});
    assert_eq!(rt::<AgentCard>(card.clone()), card);
}

#[test]
fn card_accepts_snake_case_and_emits_camel_case() {
    let snake = json!({"name":"x","description":"d","version":"1",
     "supported_interfaces":[{"url":"u","protocol_binding":"HTTP+JSON","protocol_version":"1.0"}],
     "capabilities":{"push_notifications":false,"extended_agent_card":true},
     "security_schemes":{"k":{"api_key_security_scheme":{"location":"header","name":"X"}}},
     "default_input_modes":["a"],"default_output_modes":["b"],
     "skills":[{"id":"s","name":"n","description":"d","tags":["t"],"input_modes":["x"]}],
     "icon_url":"i","documentation_url":"doc"});
    let out = rt::<AgentCard>(snake);
    assert_eq!(
        out["supportedInterfaces"][0]["protocolBinding"],
        "HTTP+JSON"
    );
    assert_eq!(out["capabilities"]["pushNotifications"], false);
    assert_eq!(out["capabilities"]["extendedAgentCard"], true);
    assert_eq!(
        out["securitySchemes"]["k"]["apiKeySecurityScheme"]["name"],
        "X"
    );
    assert_eq!(out["skills"][0]["inputModes"][0], "x");
    assert_eq!(out["iconUrl"], "i");
    assert_eq!(out["documentationUrl"], "doc");
    assert!(!out.to_string().contains('_'), "{out}");
}

#[test]
fn card_without_required_member_is_refused() {
    let card = json!({"name":"x","description":"d","version":"1",
     "capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]});
    assert!(serde_json::from_value::<AgentCard>(card).is_err());
}

#[test]
fn security_scheme_with_two_members_is_refused() {
    let v = json!({"httpAuthSecurityScheme":{"scheme":"Bearer"},"mtlsSecurityScheme":{}});
    assert!(serde_json::from_value::<SecurityScheme>(v).is_err());
    let ok = json!({"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"t","scopes":{"a":"b"}}}}});
    assert_eq!(rt::<SecurityScheme>(ok.clone()), ok);
}

#[test]
fn parts_of_each_kind_round_trip() {
    for p in [
        json!({"text":"hello"}),
        json!({"raw":"aGk=","filename":"a.png","mediaType":"image/png"}),
        json!({"url":"https://h/f.pdf","filename":"f.pdf","mediaType":"application/pdf"}),
        json!({"data":{"skill":"x","arguments":{"n":1}},"mediaType":"application/json"}),
        json!({"data":null}),
        json!({"data":[1,2],"metadata":{"k":"v"}}),
    ] {
        assert_eq!(rt::<Part>(p.clone()), p);
    }
}

#[test]
fn part_with_two_or_no_content_members_is_refused() {
    assert!(serde_json::from_value::<Part>(json!({"text":"a","data":{}})).is_err());
    assert!(serde_json::from_value::<Part>(json!({"url":"a","raw":"b"})).is_err());
    assert!(serde_json::from_value::<Part>(json!({"mediaType":"x"})).is_err());
}

#[test]
fn data_part_numbers_stay_exact() {
    let p = json!({"data":{"i":1,"big":9007199254740993u64,"f":80.0,"neg":-3}});
    let part: Part = serde_json::from_value(p).unwrap();
    let s = serde_json::to_string(&part).unwrap();
    assert_eq!(
        s,
        r#"{"data":{"big":9007199254740993,"f":80.0,"i":1,"neg":-3}}"#
    );
}

#[test]
fn enums_emit_names_and_accept_names_and_integers() {
    let t: TaskStatus = serde_json::from_value(json!({"state":3})).unwrap();
    assert_eq!(t.state, TaskState::Completed);
    let t: TaskStatus = serde_json::from_value(json!({"state":"TASK_STATE_REJECTED"})).unwrap();
    assert_eq!(t.state, TaskState::Rejected);
    assert_eq!(
        serde_json::to_value(t).unwrap(),
        json!({"state":"TASK_STATE_REJECTED"})
    );
    assert!(serde_json::from_value::<TaskStatus>(json!({"state":"completed"})).is_err());
    assert!(serde_json::from_value::<TaskStatus>(json!({"state":42})).is_err());
    let m: Message =
        serde_json::from_value(json!({"messageId":"m","role":1,"parts":[{"text":"a"}]})).unwrap();
    assert_eq!(m.role, Role::User);
    assert_eq!(serde_json::to_value(&m).unwrap()["role"], "ROLE_USER");
    assert_eq!(
        "TASK_STATE_WORKING".parse::<TaskState>(),
        Ok(TaskState::Working)
    );
    assert_eq!("2".parse::<TaskState>(), Ok(TaskState::Working));
}

#[test]
fn message_defaults_are_omitted_and_snake_case_accepted() {
    let m: Message = serde_json::from_value(json!({"message_id":"m","context_id":"c","task_id":"",
        "role":"ROLE_USER","parts":[{"text":"a"}],"reference_task_ids":["t"],"extensions":null}))
    .unwrap();
    assert_eq!(m.context_id, "c");
    assert_eq!(
        serde_json::to_value(&m).unwrap(),
        json!({"messageId":"m","contextId":"c","role":"ROLE_USER","parts":[{"text":"a"}],"referenceTaskIds":["t"]})
    );
}

#[test]
fn task_and_events_round_trip() {
    let task = json!({"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-12-02T11:49:52.973Z",
        "message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"data":{"code":"input_invalid"}}]}},
        "artifacts":[{"artifactId":"a","name":"skill","parts":[{"data":{"x":1}}]}],"history":[]});
    let out = rt::<Task>(task.clone());
    let mut expect = task;
    expect.as_object_mut().unwrap().remove("history");
    assert_eq!(out, expect);
    for ev in [
        json!({"task":{"id":"t","status":{"state":"TASK_STATE_SUBMITTED"}}}),
        json!({"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}),
        json!({"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}),
        json!({"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"lastChunk":true}}),
    ] {
        assert_eq!(rt::<StreamResponse>(ev.clone()), ev);
    }
    let snake = json!({"status_update":{"task_id":"t","context_id":"c","status":{"state":2}}});
    assert_eq!(
        rt::<StreamResponse>(snake)["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    assert!(serde_json::from_value::<StreamResponse>(
        json!({"task":{"id":"t","status":{"state":1}},"message":{}})
    )
    .is_err());
    assert!(serde_json::from_value::<SendMessageResponse>(
        json!({"task":{"id":"t","status":{"state":1}}})
    )
    .is_ok());
}

#[test]
fn send_message_request_configuration() {
    let r: SendMessageRequest = serde_json::from_value(json!({"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"}]},
        "configuration":{"return_immediately":true,"history_length":"3","accepted_output_modes":["application/json"]}})).unwrap();
    let c = r.configuration.clone().unwrap();
    assert!(c.return_immediately);
    assert_eq!(c.history_length, Some(3));
    let out = serde_json::to_value(&r).unwrap();
    assert_eq!(
        out["configuration"],
        json!({"acceptedOutputModes":["application/json"],"historyLength":3,"returnImmediately":true})
    );
    let c: SendMessageConfiguration = serde_json::from_value(json!({"historyLength":0})).unwrap();
    assert_eq!(
        c.history_length,
        Some(0),
        "optional int32 keeps presence of 0"
    );
    assert!(
        serde_json::from_value::<SendMessageConfiguration>(json!({"historyLength":1.5})).is_err()
    );
}

#[test]
fn list_tasks_request_and_response() {
    let r: ListTasksRequest = serde_json::from_value(
        json!({"context_id":"c","status":"TASK_STATE_WORKING","page_size":10,
        "include_artifacts":false,"status_timestamp_after":"2026-01-01T00:00:00Z"}),
    )
    .unwrap();
    assert_eq!(r.status, TaskState::Working);
    assert_eq!(r.include_artifacts, Some(false));
    assert_eq!(
        serde_json::to_value(ListTasksResponse::default()).unwrap(),
        json!({"tasks":[],"nextPageToken":"","pageSize":0,"totalSize":0})
    );
    let g: GetTaskRequest = serde_json::from_value(json!({"id":"t","history_length":2})).unwrap();
    assert_eq!(g.history_length, Some(2));
    assert!(serde_json::from_value::<GetTaskRequest>(json!({})).is_err());
    let c: CancelTaskRequest =
        serde_json::from_value(json!({"id":"t","metadata":{"a":1}})).unwrap();
    assert_eq!(c.id, "t");
    let s: SubscribeToTaskRequest = serde_json::from_value(json!({"id":"t","tenant":"x"})).unwrap();
    assert_eq!(s.tenant, "x");
}

#[test]
fn unknown_fields_are_ignored() {
    let m: Message = serde_json::from_value(
        json!({"messageId":"m","role":"ROLE_USER","parts":[{"text":"a","zzz":1}],"kind":"message"}),
    )
    .unwrap();
    assert_eq!(m.parts.len(), 1);
}

#[test]
fn jsonrpc_envelope_checks() {
    let ok = JsonRpcRequest::from_value(
        json!({"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"t"}}),
    )
    .unwrap();
    assert_eq!(ok.id, Some(JsonRpcId::Number(7.into())));
    assert!(
        JsonRpcRequest::from_value(json!({"jsonrpc":"2.0","id":null,"method":"x"}))
            .unwrap()
            .id
            == Some(JsonRpcId::Null)
    );
    for bad in [
        json!([]),
        json!({"jsonrpc":"1.0","id":1,"method":"x"}),
        json!({"jsonrpc":"2.0","id":{},"method":"x"}),
        json!({"jsonrpc":"2.0","id":1}),
        json!({"jsonrpc":"2.0","id":1,"method":"x","params":3}),
    ] {
        assert!(JsonRpcRequest::from_value(bad.clone()).is_err(), "{bad}");
    }
    assert_eq!(
        JsonRpcRequest::id_of(&json!({"id":"a"})),
        JsonRpcId::String("a".into())
    );
}

#[test]
fn jsonrpc_error_carries_error_info() {
    let resp = JsonRpcResponse::error(
        JsonRpcId::Number(3.into()),
        A2aError::TaskNotFound.to_jsonrpc("Task not found"),
    );
    let v = serde_json::to_value(&resp).unwrap();
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Task not found",
        "data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{}}]}})
    );
    let back: JsonRpcResponse = serde_json::from_value(v).unwrap();
    let err = back.outcome.unwrap_err();
    assert_eq!(err.kind(), Some(A2aError::TaskNotFound));
    assert_eq!(err.error_info().unwrap().reason, "TASK_NOT_FOUND");
    assert!(
        JsonRpcResponse::from_value(json!({"jsonrpc":"2.0","id":1,"result":1,"error":{}})).is_err()
    );
}

#[test]
fn error_table_matches_the_spec() {
    let table = [
        (A2aError::TaskNotFound, -32001, 404),
        (A2aError::TaskNotCancelable, -32002, 400),
        (A2aError::PushNotificationNotSupported, -32003, 400),
        (A2aError::UnsupportedOperation, -32004, 400),
        (A2aError::ContentTypeNotSupported, -32005, 400),
        (A2aError::InvalidAgentResponse, -32006, 500),
        (A2aError::ExtendedAgentCardNotConfigured, -32007, 400),
        (A2aError::ExtensionSupportRequired, -32008, 400),
        (A2aError::VersionNotSupported, -32009, 400),
        (A2aError::ParseError, -32700, 400),
        (A2aError::InvalidRequest, -32600, 400),
        (A2aError::MethodNotFound, -32601, 404),
        (A2aError::InvalidParams, -32602, 400),
        (A2aError::InternalError, -32603, 500),
    ];
    for (e, code, http) in table {
        assert_eq!(e.code(), code);
        assert_eq!(e.http_status(), http);
        assert_eq!(A2aError::from_code(code.into()), Some(e));
    }
    let rest = serde_json::to_value(A2aError::TaskNotFound.to_rest("Task not found")).unwrap();
    assert_eq!(
        rest,
        json!({"error":{"code":404,"status":"NOT_FOUND","message":"Task not found",
        "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{}}]}})
    );
}
