//! The 0.3 card: render from 1.0, read 1.0 / 0.3 / mixed cards (captures 4 and 9 of
//! `docs/a2a-0.3.md` 4.1), and the hostile card shapes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use serde_json::{json, Value};
use skillgate_a2a::v03::card::{read, render, CardForm, CardReadError, RenderError};
use skillgate_a2a::*;

fn card_1_0() -> Value {
    json!({"name":"x","description":"d","version":"1.0.0",
     "supportedInterfaces":[
        {"url":"http://h/","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
        {"url":"http://h/","protocolBinding":"JSONRPC","protocolVersion":"0.3"},
        {"url":"http://h/rest","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"},
        {"url":"http://h/t","protocolBinding":"JSONRPC","protocolVersion":"0.3","tenant":"t"}],
     "capabilities":{"streaming":true,"extendedAgentCard":true,"extensions":[{"uri":"https://e/v1","params":{"a":1}}]},
     "securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}},
        "key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key","description":"k"}},
        "oauth":{"oauth2SecurityScheme":{"flows":{"deviceCode":{"deviceAuthorizationUrl":"https://a/d","tokenUrl":"https://a/t","scopes":{}}}}}},
     "securityRequirements":[{"schemes":{"bearer":{"list":[]}}}],
     "defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],
     "skills":[{"id":"s","name":"n","description":"d","tags":["t"],"securityRequirements":[{"schemes":{"key":{"list":["r"]}}}]}]})
}

#[test]
fn render_writes_the_0_3_members_and_dual_form_schemes() {
    let card: AgentCard = serde_json::from_value(card_1_0()).unwrap();
    let v = render(&card).unwrap();
    assert_eq!(v["url"], "http://h/");
    assert_eq!(v["preferredTransport"], "JSONRPC");
    assert_eq!(v["protocolVersion"], "0.3.0");
    assert_eq!(
        v["additionalInterfaces"],
        json!([{"url":"http://h/","transport":"JSONRPC"},{"url":"http://h/rest","transport":"HTTP+JSON"}])
    );
    assert_eq!(v["supportsAuthenticatedExtendedCard"], true);
    assert_eq!(v["security"], json!([{"bearer":[]}]));
    assert_eq!(v["skills"][0]["security"], json!([{"key":["r"]}]));
    assert_eq!(
        v["securitySchemes"]["bearer"],
        json!({"httpAuthSecurityScheme":{"scheme":"Bearer"},"type":"http","scheme":"Bearer"})
    );
    assert_eq!(
        v["securitySchemes"]["key"],
        json!({"apiKeySecurityScheme":{"location":"header","name":"X-Key","description":"k"},"type":"apiKey","in":"header","name":"X-Key","description":"k"})
    );
    assert_eq!(v["securitySchemes"]["oauth"]["flows"], json!({}));
    // `required` is written even when false, as a 0.3 reader of the gRPC card sees it.
    assert_eq!(v["capabilities"]["extensions"][0]["required"], false);
    assert_eq!(v["supportedInterfaces"], card_1_0()["supportedInterfaces"]);
    // Reading our own rendering gives the 1.0 card back.
    assert_eq!(read(&v).unwrap(), (card, CardForm::Mixed));
}

#[test]
fn a_card_without_a_0_3_interface_has_no_0_3_rendering() {
    let mut v = card_1_0();
    v["supportedInterfaces"] = json!([{"url":"http://h/","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
        {"url":"http://h/","protocolBinding":"urn:x","protocolVersion":"0.3"},
        {"url":"http://h/","protocolBinding":"JSONRPC","protocolVersion":""}]);
    let card: AgentCard = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(render(&card), Err(RenderError::NoV03Interface));
    assert_eq!(read(&v).unwrap().1, CardForm::V1_0);
}

#[test]
fn captured_0_3_26_card_reads_as_a_synthesized_1_0_card() {
    let v = json!({"additionalInterfaces":[{"transport":"JSONRPC","url":"http://127.0.0.1:18300/"},{"transport":"HTTP+JSON","url":"http://127.0.0.1:18300/"}],
        "capabilities":{"extensions":[{"params":{"a":1},"required":false,"uri":"https://example.com/ext/schema-interfaces/v1"}],"pushNotifications":true,"streaming":true,"stateTransitionHistory":false},
        "defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],"description":"d","name":"toy",
        "preferredTransport":"JSONRPC","protocolVersion":"0.3.0","securitySchemes":{"bearer":{"scheme":"Bearer","type":"http"}},
        "security":[{"bearer":[]}],"supportsAuthenticatedExtendedCard":false,
        "skills":[{"id":"s","name":"n","description":"d","tags":["t"],"security":[{"bearer":["x"]}]}],
        "url":"http://127.0.0.1:18300/","version":"1.0.0"});
    let (card, form) = read(&v).unwrap();
    assert_eq!(form, CardForm::V0_3);
    let iface = |b: &str| AgentInterface {
        url: "http://127.0.0.1:18300/".into(),
        protocol_binding: b.into(),
        tenant: String::new(),
        protocol_version: "0.3".into(),
    };
    assert_eq!(
        card.supported_interfaces,
        vec![iface("JSONRPC"), iface("HTTP+JSON")]
    );
    assert_eq!(card.security_schemes["bearer"], SecurityScheme::bearer(""));
    assert_eq!(
        card.security_requirements,
        vec![SecurityRequirement::scheme("bearer")]
    );
    assert_eq!(
        card.skills[0].security_requirements[0].schemes["bearer"].list,
        vec!["x".to_string()]
    );
    assert_eq!(card.capabilities.extended_agent_card, Some(false));
    assert_eq!(card.capabilities.push_notifications, Some(true));
    assert_eq!(
        card.capabilities.extensions[0].params.as_ref().unwrap()["a"],
        1
    );
    // No preferredTransport: JSONRPC.
    let mut bare = v.clone();
    bare.as_object_mut().unwrap().remove("preferredTransport");
    bare.as_object_mut().unwrap().remove("additionalInterfaces");
    assert_eq!(
        read(&bare).unwrap().0.supported_interfaces,
        vec![iface("JSONRPC")]
    );
}

#[test]
fn captured_1_3_0_mixed_card_reads_as_1_0_ignoring_the_0_3_members() {
    let v = json!({"name":"x","description":"d","version":"1",
        "supportedInterfaces":[{"url":"http://h/","protocolBinding":"JSONRPC","protocolVersion":"1.0"},{"url":"http://h/","protocolBinding":"JSONRPC","protocolVersion":"0.3"}],
        "url":"http://other/","preferredTransport":"GRPC","protocolVersion":"0.3","security":[{"other":[]}],
        "capabilities":{},"securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"},"type":"http","scheme":"Basic"}},
        "defaultInputModes":[],"defaultOutputModes":[],"skills":[]});
    let (card, form) = read(&v).unwrap();
    assert_eq!(form, CardForm::Mixed);
    assert_eq!(card.supported_interfaces.len(), 2);
    assert_eq!(
        card.security_schemes["bearer"],
        SecurityScheme::bearer(""),
        "the wrapper wins"
    );
    assert!(card.security_requirements.is_empty());
}

#[test]
fn type_only_schemes_convert_and_bad_cards_say_what_is_wrong() {
    let mut v = card_1_0();
    v["securitySchemes"] = json!({"k":{"type":"apiKey","in":"query","name":"key"},
        "o":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://a/t","scopes":{"r":"read"}},"implicit":{"authorizationUrl":"https://a/i","scopes":{}}}},
        "m":{"type":"mutualTLS"},"oid":{"type":"openIdConnect","openIdConnectUrl":"https://a/.well-known"}});
    let (card, form) = read(&v).unwrap();
    assert_eq!(form, CardForm::Mixed);
    assert_eq!(
        serde_json::to_value(&card.security_schemes).unwrap(),
        json!({
        "k":{"apiKeySecurityScheme":{"location":"query","name":"key"}},
        "m":{"mtlsSecurityScheme":{}},
        "o":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"https://a/t","scopes":{"r":"read"}}}}},
        "oid":{"openIdConnectSecurityScheme":{"openIdConnectUrl":"https://a/.well-known"}}})
    );
    v["securitySchemes"] = json!({"k":{"type":"kerberos"}});
    assert!(matches!(read(&v), Err(CardReadError::Member { at, .. }) if at == "securitySchemes.k"));
    assert_eq!(read(&json!([])), Err(CardReadError::NotAnObject));
    assert_eq!(read(&json!({"name":"x"})), Err(CardReadError::NoInterfaces));
    let e = read(&json!({"url":"http://h/","name":"x"})).unwrap_err();
    assert!(
        matches!(&e, CardReadError::Invalid { form: "0.3", .. }),
        "{e}"
    );
    let e = read(&json!({"url":5})).unwrap_err();
    assert!(e.to_string().contains("url"), "{e}");
    let e = read(&json!({"url":"u","security":[{"b":"x"}]})).unwrap_err();
    assert!(e.to_string().contains("security[0].b"), "{e}");
    let e = read(&json!({"url":"u","additionalInterfaces":[{"url":"v"}]})).unwrap_err();
    assert!(
        e.to_string().contains("additionalInterfaces[0].transport"),
        "{e}"
    );
}

#[test]
fn the_constant_keeps_its_old_path() {
    assert_eq!(
        V03_ONLY_CARD_MEMBERS,
        skillgate_a2a::v03::card::V03_ONLY_CARD_MEMBERS
    );
    assert!(V03_ONLY_CARD_MEMBERS.contains(&"additionalInterfaces"));
}

#[test]
fn the_proto_form_of_the_03_card_writes_security_as_the_proto_does() {
    let v03 = serde_json::json!({
        "name": "a", "url": "http://h/", "protocolVersion": "0.3.0",
        "security": [{"bearer": ["read", "write"]}, {}],
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"},
            "type": "http", "scheme": "Bearer"}},
        "skills": [{"id": "s", "security": [{"bearer": []}]}, {"id": "t"}]
    });
    let p = skillgate_a2a::v03::card::to_proto_json(&v03);
    assert_eq!(
        p["security"],
        serde_json::json!([{"schemes": {"bearer": {"list": ["read", "write"]}}}, {"schemes": {}}])
    );
    assert_eq!(
        p["skills"][0]["security"],
        serde_json::json!([{"schemes": {"bearer": {"list": []}}}])
    );
    assert!(p["skills"][1].get("security").is_none());
    // Everything else is the 0.3 card's own.
    assert_eq!(p["securitySchemes"], v03["securitySchemes"]);
    assert_eq!(p["url"], v03["url"]);
    // A client reading GetAgentCard's answer gets the 0.3 JSON card back.
    assert_eq!(skillgate_a2a::v03::card::from_proto_json(&p), v03);
}
