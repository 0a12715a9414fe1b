//! Signing and verifying real cards with real keys (tests/data), each algorithm both ways.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{json, Value};
use skillgate_sign::{
    protected_header, verify, verify_each, AlgorithmError, HeaderError, SignatureError, SigningKey,
    TrustedKeys, VerifyError,
};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn card() -> Value {
    json!({"name": "signed agent", "description": "d", "version": "1.0.0",
        "supportedInterfaces": [{"url": "https://agent.example/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false, "extensions": [{"uri": "urn:x", "required": false, "params": {"n": 1}}]},
        "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": [{"id": "s", "name": "S", "description": "ünïcode ✓", "tags": ["t"]}]})
}

fn trusted() -> TrustedKeys {
    TrustedKeys::from_json(&data("jwks.json")).unwrap()
}

#[test]
fn every_algorithm_signs_and_verifies_with_its_kid() {
    for (file, alg) in [
        ("es256", "ES256"),
        ("es384", "ES384"),
        ("rs256", "RS256"),
        ("eddsa", "EdDSA"),
    ] {
        let key = SigningKey::from_pem(&data(&format!("{file}.pem")), file, None, None).unwrap();
        assert_eq!(key.alg(), alg);
        let mut c = card();
        key.sign(&mut c).unwrap();
        let header = protected_header(&c["signatures"][0]).unwrap();
        assert_eq!(header["alg"], alg);
        assert_eq!(header["kid"], file);
        assert_eq!(header["typ"], "JOSE");
        let v = verify(&c, &trusted()).unwrap();
        assert_eq!((v.kid.as_str(), v.alg.as_str(), v.index), (file, alg, 0));
    }
}

#[test]
fn rsa_pss_is_chosen_by_name() {
    let key = SigningKey::from_pem(&data("rs256.pem"), "rs256", Some("PS256"), None).unwrap();
    let mut c = card();
    key.sign(&mut c).unwrap();
    assert_eq!(verify(&c, &trusted()).unwrap().alg, "PS256");
}

#[test]
fn a_changed_card_or_an_unknown_kid_does_not_verify() {
    let key = SigningKey::from_pem(&data("es256.pem"), "es256", None, None).unwrap();
    let mut c = card();
    key.sign(&mut c).unwrap();
    let mut tampered = c.clone();
    tampered["skills"][0]["description"] = json!("changed");
    let e = verify(&tampered, &trusted()).unwrap_err();
    assert!(
        e.to_string()
            .contains("does not match this card's canonical form"),
        "{e}"
    );
    let each = verify_each(&tampered, &trusted()).unwrap();
    assert!(
        matches!(&each[..], [Err(SignatureError::Mismatch { alg, kid })] if alg == "ES256" && kid == "es256"),
        "{each:?}"
    );
    // Member order, whitespace and dropped defaults do not matter: the canonical form does.
    let reordered: Value =
        serde_json::from_str(&serde_json::to_string_pretty(&c).unwrap()).unwrap();
    let mut without_default = reordered.clone();
    without_default["capabilities"]["extensions"][0]
        .as_object_mut()
        .unwrap()
        .remove("required");
    verify(&without_default, &trusted()).unwrap();

    let other = SigningKey::from_pem(&data("es256.pem"), "someone-else", None, None).unwrap();
    let mut c2 = card();
    other.sign(&mut c2).unwrap();
    let e = verify(&c2, &trusted()).unwrap_err();
    assert!(
        e.to_string()
            .contains("no trusted key has kid \"someone-else\""),
        "{e}"
    );
    assert_eq!(
        verify(&card(), &trusted()).unwrap_err(),
        VerifyError::Unsigned
    );
}

#[test]
fn a_second_signature_verifies_when_the_first_does_not() {
    let mut c = card();
    SigningKey::from_pem(&data("es256.pem"), "unknown", None, None)
        .unwrap()
        .sign(&mut c)
        .unwrap();
    SigningKey::from_pem(&data("eddsa.pem"), "eddsa", None, None)
        .unwrap()
        .sign(&mut c)
        .unwrap();
    let v = verify(&c, &trusted()).unwrap();
    assert_eq!((v.index, v.kid.as_str()), (1, "eddsa"));
}

#[test]
fn alg_none_hmac_and_malformed_headers_are_refused() {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    let mut c = card();
    let header = |h: Value| URL_SAFE_NO_PAD.encode(h.to_string());
    c["signatures"] = json!([
        {"protected": header(json!({"alg": "none", "kid": "es256"})), "signature": ""},
        {"protected": header(json!({"alg": "HS256", "kid": "es256"})), "signature": "AAAA"},
        {"protected": "%%%", "signature": "AAAA"},
        {"protected": header(json!(["not", "an", "object"])), "signature": "AAAA"},
        {"protected": header(json!({"alg": "ES256"})), "signature": "AAAA"},
    ]);
    let VerifyError::Invalid(reasons) = verify(&c, &trusted()).unwrap_err() else {
        panic!("expected Invalid");
    };
    assert_eq!(reasons.len(), 5);
    assert!(reasons[0].contains("`none` is no signature"), "{reasons:?}");
    assert!(
        reasons[1].contains("not an asymmetric JWS algorithm"),
        "{reasons:?}"
    );
    assert!(reasons[2].contains("not base64url"), "{reasons:?}");
    assert!(reasons[3].contains("not a JSON object"), "{reasons:?}");
    assert!(reasons[4].contains("no `kid`"), "{reasons:?}");
    let each: Vec<SignatureError> = verify_each(&c, &trusted())
        .unwrap()
        .into_iter()
        .map(Result::unwrap_err)
        .collect();
    assert_eq!(
        each,
        [
            SignatureError::Algorithm {
                alg: "none".into(),
                source: AlgorithmError::None
            },
            SignatureError::Algorithm {
                alg: "HS256".into(),
                source: AlgorithmError::NotAccepted
            },
            SignatureError::Header(HeaderError::NotBase64),
            SignatureError::Header(HeaderError::NotObject),
            SignatureError::NoKid,
        ]
    );
    assert!(
        TrustedKeys::from_json(br#"{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"h"}]}"#).is_err()
    );
    assert!(SigningKey::from_pem(b"not a key", "k", None, None).is_err());
    assert!(
        SigningKey::from_pem(&data("es256.pem"), "k", Some("RS256"), None).is_err(),
        "alg must fit the key"
    );
}

/// `card` as a server answers an A2A 0.3 reader: the 1.0 members plus the 0.3-only ones, skill
/// `security` and a dual-form scheme, with the 1.0 card's signature copied over.
fn as_v03_rendering(signed_v1: &Value) -> Value {
    let mut c = signed_v1.clone();
    let o = c.as_object_mut().unwrap();
    o.insert("url".into(), json!("https://agent.example/"));
    o.insert("preferredTransport".into(), json!("JSONRPC"));
    o.insert("protocolVersion".into(), json!("0.3.0"));
    o.insert(
        "additionalInterfaces".into(),
        json!([{"url": "https://agent.example/", "transport": "JSONRPC"}]),
    );
    o.insert("security".into(), json!([{"bearer": []}]));
    c["skills"][0]["security"] = json!([{"bearer": []}]);
    c["securitySchemes"]["bearer"]["type"] = json!("http");
    c["securitySchemes"]["bearer"]["scheme"] = json!("Bearer");
    c
}

#[test]
fn a_1_0_signature_verifies_on_the_0_3_rendering_through_its_1_0_view() {
    let key = SigningKey::from_pem(&data("es256.pem"), "es256", None, None).unwrap();
    let mut v1 = card();
    v1["securitySchemes"] = json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}});
    v1["securityRequirements"] = json!([{"schemes": {"bearer": {"list": []}}}]);
    key.sign(&mut v1).unwrap();
    let rendered = as_v03_rendering(&v1);
    let got = verify(&rendered, &trusted()).unwrap();
    assert_eq!(got.index, 0);
    // A 1.0 member changed on the rendering still breaks it: the view holds every 1.0 member.
    let mut changed = rendered.clone();
    changed["supportedInterfaces"][0]["url"] = json!("https://evil.example/");
    assert!(matches!(
        verify(&changed, &trusted()),
        Err(VerifyError::Invalid(_))
    ));
    let mut changed = rendered.clone();
    changed["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] = json!("Basic");
    assert!(verify(&changed, &trusted()).is_err());
    // The view is taken only from a 1.0 card: a 0.3-only card signed for 1.0 readers is not.
    let mut no_v1 = rendered;
    no_v1.as_object_mut().unwrap().remove("supportedInterfaces");
    assert!(verify(&no_v1, &trusted()).is_err());
}

#[test]
fn the_0_3_signature_covers_the_0_3_view_and_not_the_rfc_8785_payload() {
    let key = SigningKey::from_pem(&data("eddsa.pem"), "eddsa", None, None).unwrap();
    let mut c = as_v03_rendering(&card());
    let sig = key.v03_signature(&c).unwrap();
    c["signatures"] = json!([sig]);
    // skillgate reads 1.0 members, which this signature does not cover: not trusted here.
    assert!(verify(&c, &trusted()).is_err());
    let payload = skillgate_sign::v03_signing_payload(&c).unwrap();
    let text = String::from_utf8(payload).unwrap();
    assert!(
        text.starts_with(r#"{"additionalInterfaces":[{"transport":"JSONRPC","#),
        "{text}"
    );
    assert!(!text.contains("supportedInterfaces") && !text.contains("protocolVersion"));
    assert!(
        text.contains(r#""description":"\u00fcn\u00efcode \u2713""#),
        "{text}"
    );
}
