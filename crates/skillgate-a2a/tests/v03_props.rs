//! Round trips 1.0 -> 0.3 JSON -> 1.0 (`docs/a2a-0.3.md` 4.4): every value goes through its
//! JSON text, so the serde of the 0.3 types is exercised, not only the translation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use skillgate_a2a::timestamp::format_unix_millis;
use skillgate_a2a::v03::{self, json as j, pj as p, rpc, translate as t};
use skillgate_a2a::*;

fn id() -> impl Strategy<Value = String> {
    "[a-z0-9]{1,8}"
}

fn opt_id() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), id()]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "\\PC{0,6}".prop_map(Value::String),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,5}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Metadata without the wrap marker (a 1.0 object payload with a forged marker is the one
/// documented ambiguity) and never `{}` (a wrapped part's emptied metadata reads as absent).
fn metadata() -> impl Strategy<Value = Option<Map<String, Value>>> {
    prop::option::of(
        prop::collection::btree_map("[a-z]{1,5}", leaf(), 1..3)
            .prop_map(|m| m.into_iter().collect()),
    )
}

/// A 1.0 part and the part expected after the round trip.
fn part() -> impl Strategy<Value = (Part, Part)> {
    let content = prop_oneof![
        "\\PC{0,10}".prop_map(PartContent::Text),
        "[A-Za-z0-9+/]{0,8}".prop_map(PartContent::Raw),
        "https://[a-z]{1,5}/[a-z]{0,5}".prop_map(PartContent::Url),
        any_json().prop_map(PartContent::Data),
        any_json().prop_map(|v| PartContent::SharedData(SharedJson::new(v))),
    ];
    (
        content,
        metadata(),
        opt_id(),
        prop_oneof![Just(String::new()), Just("text/plain".to_string())],
    )
        .prop_map(|(content, metadata, filename, media_type)| {
            let sent = Part {
                content: content.clone(),
                metadata: metadata.clone(),
                filename: filename.clone(),
                media_type: media_type.clone(),
            };
            let mut back = Part::from_content(content);
            back.metadata = metadata;
            match &back.content {
                PartContent::Raw(_) | PartContent::Url(_) => {
                    back.filename = filename;
                    back.media_type = media_type;
                }
                PartContent::Data(_) | PartContent::SharedData(_) => {
                    back.media_type = MEDIA_TYPE_JSON.into()
                }
                PartContent::Text(_) => {}
            }
            (sent, back)
        })
}

fn message() -> impl Strategy<Value = (Message, Message)> {
    (
        id(),
        opt_id(),
        opt_id(),
        prop_oneof![Just(Role::User), Just(Role::Agent)],
        prop::collection::vec(part(), 0..4),
        metadata(),
        prop::collection::vec(id(), 0..2),
        prop::collection::vec(id(), 0..2),
    )
        .prop_map(
            |(
                message_id,
                context_id,
                task_id,
                role,
                parts,
                metadata,
                extensions,
                reference_task_ids,
            )| {
                let m = Message {
                    message_id,
                    context_id,
                    task_id,
                    role,
                    parts: vec![],
                    metadata,
                    extensions,
                    reference_task_ids,
                };
                let (sent, back): (Vec<Part>, Vec<Part>) = parts.into_iter().unzip();
                (
                    Message {
                        parts: sent,
                        ..m.clone()
                    },
                    Message { parts: back, ..m },
                )
            },
        )
}

fn state() -> impl Strategy<Value = TaskState> {
    prop::sample::select(vec![
        TaskState::Submitted,
        TaskState::Working,
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::InputRequired,
        TaskState::Rejected,
        TaskState::AuthRequired,
    ])
}

fn status() -> impl Strategy<Value = (TaskStatus, TaskStatus)> {
    (
        state(),
        prop::option::of(message()),
        prop::option::of(0i64..4_102_444_800_000),
    )
        .prop_map(|(state, m, ms)| {
            let timestamp = ms.map(format_unix_millis);
            let (sent, back) = m.map_or((None, None), |(a, b)| (Some(a), Some(b)));
            (
                TaskStatus {
                    state,
                    message: sent,
                    timestamp: timestamp.clone(),
                },
                TaskStatus {
                    state,
                    message: back,
                    timestamp,
                },
            )
        })
}

fn artifact() -> impl Strategy<Value = (Artifact, Artifact)> {
    (
        id(),
        opt_id(),
        opt_id(),
        prop::collection::vec(part(), 0..3),
        metadata(),
        prop::collection::vec(id(), 0..2),
    )
        .prop_map(
            |(artifact_id, name, description, parts, metadata, extensions)| {
                let a = Artifact {
                    artifact_id,
                    name,
                    description,
                    parts: vec![],
                    metadata,
                    extensions,
                };
                let (sent, back): (Vec<Part>, Vec<Part>) = parts.into_iter().unzip();
                (
                    Artifact {
                        parts: sent,
                        ..a.clone()
                    },
                    Artifact { parts: back, ..a },
                )
            },
        )
}

fn task() -> impl Strategy<Value = (Task, Task)> {
    (
        id(),
        id(),
        status(),
        prop::collection::vec(artifact(), 0..3),
        prop::collection::vec(message(), 0..3),
        metadata(),
    )
        .prop_map(|(id, context_id, (s1, s2), arts, hist, metadata)| {
            let (a1, a2): (Vec<_>, Vec<_>) = arts.into_iter().unzip();
            let (h1, h2): (Vec<_>, Vec<_>) = hist.into_iter().unzip();
            (
                Task {
                    id: id.clone(),
                    context_id: context_id.clone(),
                    status: s1,
                    artifacts: a1,
                    history: h1,
                    metadata: metadata.clone(),
                },
                Task {
                    id,
                    context_id,
                    status: s2,
                    artifacts: a2,
                    history: h2,
                    metadata,
                },
            )
        })
}

fn event() -> impl Strategy<Value = (StreamResponse, StreamResponse)> {
    prop_oneof![
        task().prop_map(|(a, b)| (StreamResponse::Task(a), StreamResponse::Task(b))),
        message().prop_map(|(a, b)| (StreamResponse::Message(a), StreamResponse::Message(b))),
        (id(), id(), status(), metadata()).prop_map(|(task_id, context_id, (s1, s2), metadata)| {
            let e = TaskStatusUpdateEvent {
                task_id,
                context_id,
                status: s1,
                metadata,
            };
            (
                StreamResponse::StatusUpdate(e.clone()),
                StreamResponse::StatusUpdate(TaskStatusUpdateEvent { status: s2, ..e }),
            )
        }),
        (
            id(),
            id(),
            artifact(),
            any::<bool>(),
            any::<bool>(),
            metadata()
        )
            .prop_map(
                |(task_id, context_id, (a1, a2), append, last_chunk, metadata)| {
                    let e = TaskArtifactUpdateEvent {
                        task_id,
                        context_id,
                        artifact: a1,
                        append,
                        last_chunk,
                        metadata,
                    };
                    (
                        StreamResponse::ArtifactUpdate(e.clone()),
                        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                            artifact: a2,
                            ..e
                        }),
                    )
                }
            ),
    ]
}

fn push_config() -> impl Strategy<Value = TaskPushNotificationConfig> {
    (
        opt_id(),
        "https://[a-z]{1,6}/w",
        opt_id(),
        prop::option::of((id(), opt_id())),
    )
        .prop_map(|(id, url, token, auth)| TaskPushNotificationConfig {
            id,
            url,
            token,
            authentication: auth.map(|(scheme, credentials)| AuthenticationInfo {
                scheme,
                credentials,
            }),
            ..Default::default()
        })
}

fn through_text<T: serde::Serialize, U: serde::de::DeserializeOwned>(v: &T) -> U {
    serde_json::from_str(&serde_json::to_string(v).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn message_round_trips((sent, back) in message()) {
        let wire: j::Message = through_text(&t::message_to_v03(&sent).unwrap());
        prop_assert_eq!(t::message_from_v03(wire).unwrap(), back);
    }

    #[test]
    fn task_and_events_round_trip((sent, back) in event()) {
        let v = rpc::write_stream_event(&sent).unwrap();
        if let StreamResponse::StatusUpdate(u) = &sent {
            prop_assert_eq!(&v["final"], &json!(u.status.state.is_terminal() || u.status.state.is_interrupted()));
        }
        let text = serde_json::to_string(&v).unwrap();
        prop_assert_eq!(rpc::read_stream_event(serde_json::from_str(&text).unwrap()).unwrap(), back.clone());
        if let (StreamResponse::Task(s), StreamResponse::Task(b)) = (&sent, &back) {
            let r = SendMessageResponse::Task(s.clone());
            prop_assert_eq!(rpc::read_send_message_result(rpc::write_send_message_result(&r).unwrap()).unwrap(), SendMessageResponse::Task(b.clone()));
        }
    }

    #[test]
    fn send_message_request_round_trips(
        (sent_msg, back_msg) in message(),
        config in prop::option::of((prop::collection::vec("[a-z]{1,4}/[a-z]{1,4}", 0..3), prop::option::of(push_config()), prop::option::of(0i32..1000), any::<bool>())),
        metadata in metadata(),
    ) {
        let configuration = config.map(|(accepted_output_modes, push, history_length, return_immediately)| SendMessageConfiguration {
            accepted_output_modes, task_push_notification_config: push, history_length, return_immediately,
        });
        let sent = SendMessageRequest { message: sent_msg, configuration: configuration.clone(), metadata: metadata.clone(), ..Default::default() };
        // historyLength 0 cannot be said in 0.3 (it means "all"): it comes back unset, and a
        // configuration of nothing but defaults comes back as none (the same in 1.0).
        let expected_config = configuration
            .map(|c| SendMessageConfiguration { history_length: c.history_length.filter(|n| *n > 0), ..c })
            .filter(|c| *c != SendMessageConfiguration::default());
        let expected = SendMessageRequest { message: back_msg, configuration: expected_config, metadata, ..Default::default() };
        let (method, params) = rpc::write_request(&rpc::Request::SendMessage(sent)).unwrap();
        let params = params.unwrap();
        prop_assert!(params["configuration"]["blocking"].is_boolean(), "blocking is always explicit");
        let text = serde_json::to_string(&params).unwrap();
        let got = rpc::read_request(method, Some(serde_json::from_str(&text).unwrap())).unwrap();
        prop_assert_eq!(got, rpc::Request::SendMessage(expected));
    }
}

fn scheme() -> impl Strategy<Value = SecurityScheme> {
    let flow = (
        prop::option::of("https://[a-z]{1,4}/a"),
        "https://[a-z]{1,4}/t",
        any::<bool>(),
    )
        .prop_map(|(auth, token, pkce)| OAuthFlow {
            authorization_url: auth.unwrap_or_default(),
            token_url: token,
            pkce_required: pkce,
            ..Default::default()
        });
    prop_oneof![
        id().prop_map(SecurityScheme::bearer),
        (
            id(),
            prop::sample::select(vec!["header", "query", "cookie"])
        )
            .prop_map(|(name, loc)| SecurityScheme::ApiKeySecurityScheme(
                ApiKeySecurityScheme {
                    description: String::new(),
                    location: loc.into(),
                    name,
                }
            )),
        (flow, any::<u8>()).prop_map(|(f, which)| SecurityScheme::Oauth2SecurityScheme(
            OAuth2SecurityScheme {
                description: String::new(),
                flows: match which % 3 {
                    0 => OAuthFlows::AuthorizationCode(f),
                    1 => OAuthFlows::ClientCredentials(f),
                    _ => OAuthFlows::DeviceCode(f),
                },
                oauth2_metadata_url: String::new(),
            }
        )),
        opt_id().prop_map(|description| SecurityScheme::MtlsSecurityScheme(
            MutualTlsSecurityScheme { description }
        )),
    ]
}

fn requirements() -> impl Strategy<Value = Vec<SecurityRequirement>> {
    prop::collection::vec(
        prop::collection::btree_map("[a-c]", prop::collection::vec(id(), 0..2), 0..3).prop_map(
            |m| SecurityRequirement {
                schemes: m
                    .into_iter()
                    .map(|(k, list)| (k, StringList { list }))
                    .collect(),
            },
        ),
        0..3,
    )
}

fn card() -> impl Strategy<Value = AgentCard> {
    let iface = (
        "http://[a-z]{1,5}/",
        prop::sample::select(vec![BINDING_JSONRPC, BINDING_HTTP_JSON, BINDING_GRPC]),
        prop::sample::select(vec!["0.3", "1.0", "0.3.1"]),
    )
        .prop_map(|(url, b, v)| AgentInterface {
            url,
            protocol_binding: b.into(),
            tenant: String::new(),
            protocol_version: v.into(),
        });
    (
        prop::collection::vec(iface, 0..4),
        prop::collection::btree_map("[a-c]", scheme(), 0..3),
        requirements(),
        requirements(),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(mut ifaces, schemes, reqs, skill_reqs, ext, streaming)| {
            // At least one 0.3 interface, so a 0.3 rendering exists.
            ifaces.push(AgentInterface {
                url: "http://z/".into(),
                protocol_binding: BINDING_JSONRPC.into(),
                tenant: String::new(),
                protocol_version: "0.3".into(),
            });
            AgentCard {
                name: "n".into(),
                description: "d".into(),
                supported_interfaces: ifaces,
                version: "1".into(),
                capabilities: AgentCapabilities {
                    streaming,
                    extended_agent_card: ext,
                    ..Default::default()
                },
                security_schemes: schemes,
                security_requirements: reqs,
                default_input_modes: vec!["application/json".into()],
                default_output_modes: vec!["application/json".into()],
                skills: vec![AgentSkill {
                    id: "s".into(),
                    name: "s".into(),
                    description: "d".into(),
                    tags: vec!["t".into()],
                    security_requirements: skill_reqs,
                    ..Default::default()
                }],
                ..Default::default()
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn card_render_then_read_gives_the_card_back(card in card()) {
        let rendered = v03::card::render(&card).unwrap();
        let (back, form) = v03::card::read(&rendered).unwrap();
        prop_assert_eq!(form, v03::card::CardForm::Mixed);
        prop_assert_eq!(&back, &card);
        // Read as a pure 0.3 card (a 0.3 reader's view): the 0.3 interfaces, the security
        // requirements and the extended-card flag survive; schemes survive except what has
        // no 0.3 form (deviceCode, pkceRequired).
        let mut only_v03 = rendered.clone();
        let o = only_v03.as_object_mut().unwrap();
        o.remove("supportedInterfaces");
        for s in o.get_mut("securitySchemes").and_then(Value::as_object_mut).into_iter().flat_map(|m| m.values_mut()) {
            s.as_object_mut().unwrap().retain(|k, _| !k.ends_with("SecurityScheme"));
        }
        let deviceless = card.security_schemes.values().all(|s| !matches!(s, SecurityScheme::Oauth2SecurityScheme(o) if matches!(o.flows, OAuthFlows::DeviceCode(_))));
        match v03::card::read(&only_v03) {
            Ok((c03, form)) => {
                prop_assert!(deviceless);
                prop_assert_eq!(form, v03::card::CardForm::V0_3);
                let mut expected: Vec<(String, String)> = Vec::new();
                for i in card.supported_interfaces.iter().filter(|i| v03::card::is_v03_interface(i)) {
                    let pair = (i.url.clone(), i.protocol_binding.clone());
                    if !expected.contains(&pair) { expected.push(pair); }
                }
                let got: Vec<(String, String)> = c03.supported_interfaces.iter().map(|i| (i.url.clone(), i.protocol_binding.clone())).collect();
                prop_assert_eq!(got, expected);
                prop_assert!(c03.supported_interfaces.iter().all(|i| i.protocol_version == "0.3"));
                prop_assert_eq!(&c03.security_requirements, &card.security_requirements);
                prop_assert_eq!(&c03.skills, &card.skills);
                prop_assert_eq!(c03.capabilities.extended_agent_card, card.capabilities.extended_agent_card);
                prop_assert_eq!(c03.security_schemes.len(), card.security_schemes.len());
            }
            Err(e) => prop_assert!(!deviceless, "{}", e),
        }
    }
}

// ------------------------------------------------------------------ 0.3 ProtoJSON (HTTP+JSON)

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// As the 0.3 JSON round trip, minus `referenceTaskIds`, which the 0.3 proto lacks.
    #[test]
    fn message_round_trips_through_protojson((sent, back) in message()) {
        let wire: p::Message = through_text(&t::pj::message_to_pj(&sent).unwrap());
        let expected = Message { reference_task_ids: vec![], ..back };
        prop_assert_eq!(t::pj::message_from_pj(wire).unwrap(), expected);
    }

    #[test]
    fn events_round_trip_through_protojson((sent, back) in event()) {
        let v = serde_json::to_value(t::pj::stream_response_to_pj(&sent).unwrap()).unwrap();
        if let StreamResponse::StatusUpdate(u) = &sent {
            let fin = u.status.state.is_terminal() || u.status.state.is_interrupted();
            prop_assert_eq!(&v["statusUpdate"]["final"], &json!(fin));
        }
        let wire: p::StreamResponse = through_text(&v);
        let strip = |m: &mut Message| m.reference_task_ids.clear();
        let mut expected = back;
        match &mut expected {
            StreamResponse::Task(t) => { t.history.iter_mut().for_each(strip); if let Some(m) = t.status.message.as_mut() { strip(m) } }
            StreamResponse::Message(m) => strip(m),
            StreamResponse::StatusUpdate(u) => { if let Some(m) = u.status.message.as_mut() { strip(m) } }
            StreamResponse::ArtifactUpdate(_) => {}
        }
        prop_assert_eq!(t::pj::stream_response_from_pj(wire).unwrap(), expected);
    }

    #[test]
    fn send_message_request_round_trips_through_protojson(
        (sent_msg, back_msg) in message(),
        config in prop::option::of((prop::collection::vec("[a-z]{1,4}/[a-z]{1,4}", 0..3), prop::option::of(push_config()), prop::option::of(0i32..1000), any::<bool>())),
        metadata in metadata(),
    ) {
        let configuration = config.map(|(accepted_output_modes, push, history_length, return_immediately)| SendMessageConfiguration {
            accepted_output_modes, task_push_notification_config: push, history_length, return_immediately,
        });
        let sent = SendMessageRequest { message: sent_msg, configuration: configuration.clone(), metadata: metadata.clone(), ..Default::default() };
        let expected_config = configuration
            .map(|c| SendMessageConfiguration { history_length: c.history_length.filter(|n| *n > 0), ..c })
            .filter(|c| *c != SendMessageConfiguration::default());
        let expected = SendMessageRequest {
            message: Message { reference_task_ids: vec![], ..back_msg },
            configuration: expected_config,
            metadata,
            ..Default::default()
        };
        let v = serde_json::to_value(t::pj::send_message_request_to_pj(&sent).unwrap()).unwrap();
        // proto3 reads an absent `blocking` as false: it must always be written.
        prop_assert!(v["configuration"]["blocking"].is_boolean());
        let wire: p::SendMessageRequest = through_text(&v);
        prop_assert_eq!(t::pj::send_message_request_from_pj(wire).unwrap(), expected);
    }

    #[test]
    fn push_configs_round_trip_through_protojson(c in push_config()) {
        let c = TaskPushNotificationConfig { task_id: "t1".into(), id: if c.id.is_empty() { "c1".into() } else { c.id.clone() }, ..c };
        let wire = t::pj::push_config_to_pj(&c);
        prop_assert_eq!(&wire.name, &format!("tasks/t1/pushNotificationConfigs/{}", c.id));
        let back = t::pj::push_config_from_pj(through_text(&wire), "t1").unwrap();
        prop_assert_eq!(&back, &c);
        let created = serde_json::to_value(t::pj::create_push_config_to_pj(&c)).unwrap();
        prop_assert_eq!(t::pj::create_push_config_from_pj(created, "t1").unwrap(), c);
    }
}
