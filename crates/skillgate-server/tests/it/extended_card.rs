//! The extended Agent Card: extended-only skills are listed (with their digests) for
//! authenticated callers whose token allows them, and unknown to everyone else.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::*;

const ALL: (&str, &str) = ("Authorization", "Bearer all-secret-0123456789");
const LIMITED: (&str, &str) = ("Authorization", "Bearer limited-secret-0123456789");

fn secret_skill() -> Skill {
    Skill::builder("secret_op", "1.0")
        .input_schema("urn:test:secret:input", "1.0", json!({"type": "object"}))
        .output_schema("urn:test:secret:output", "1.0", json!({"type": "object"}))
        .extended_only()
        .handler(|_a: Value, _c: SkillContext| async move {
            Ok(SkillOutput::new(json!({"done": true})))
        })
        .build()
}

fn extended_agent() -> Agent {
    Agent::builder("ext-agent", "An agent with an extended card", "0.1.0")
        .skill(observe_skill())
        .skill(secret_skill())
        .build()
        .unwrap()
}

fn ids(card: &Value) -> Vec<String> {
    card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect()
}

fn advertised(card: &Value) -> Vec<String> {
    card["capabilities"]["extensions"][0]["params"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["skill_id"].as_str().unwrap().to_owned())
        .collect()
}

async fn start() -> Server {
    let config = ServerConfig {
        tokens: Some(
            TokenTable::parse(
                "all-secret-0123456789\nlimited-secret-0123456789 evaluate_resource_condition\n",
            )
            .unwrap(),
        ),
        ..Default::default()
    };
    Server::start(extended_agent(), config).await
}

#[tokio::test]
async fn the_public_card_hides_extended_skills_and_the_extended_card_shows_them_to_allowed_callers()
{
    let s = start().await;
    let public = s.card().await;
    assert_eq!(public["capabilities"]["extendedAgentCard"], true);
    assert!(
        !ids(&public).contains(&"secret_op".to_owned()),
        "{:?}",
        ids(&public)
    );
    assert!(!advertised(&public).contains(&"secret_op".to_owned()));

    let (status, _, r) = s.rpc_with("GetExtendedAgentCard", json!({}), &[ALL]).await;
    assert_eq!(status, 200);
    let ext = &r["result"];
    assert!(ids(ext).contains(&"secret_op".to_owned()), "{r}");
    assert!(advertised(ext).contains(&"secret_op".to_owned()), "{r}");

    // REST: the same card.
    let (status, _, text) = s
        .get_raw("/extendedAgentCard", &[ALL, ("A2A-Version", "1.0")])
        .await;
    assert_eq!(status, 200, "{text}");
    let rest: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(ids(&rest), ids(ext));

    // A token not allowed the skill does not see it.
    let (_, _, r) = s
        .rpc_with("GetExtendedAgentCard", json!({}), &[LIMITED])
        .await;
    assert!(!ids(&r["result"]).contains(&"secret_op".to_owned()), "{r}");
    // Without a token: 401 like every other method.
    let (status, _, _) = s.rpc_with("GetExtendedAgentCard", json!({}), &[]).await;
    assert_eq!(status, 401);
    s.shutdown().await;
}

#[tokio::test]
async fn a_0_3_rest_client_gets_the_extended_card_at_v1_card_in_0_3_json() {
    let s = start().await;
    let (status, _, text) = s.get_raw("/v1/card", &[ALL]).await;
    assert_eq!(status, 200, "{text}");
    let card: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0", "{card}");
    assert!(ids(&card).contains(&"secret_op".to_owned()), "{card}");
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true);
    // Without a token: 401 with the 0.3 body of the path's dialect.
    let (status, h, text) = s.get_raw("/v1/card", &[]).await;
    assert_eq!(status, 401, "{text}");
    assert!(h.contains_key("www-authenticate"));
    let body: Value = serde_json::from_str(&text).unwrap();
    assert!(
        body["message"].is_string() && body.get("error").is_none(),
        "{body}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn an_extended_skill_is_unknown_to_a_caller_who_may_not_see_it() {
    let s = start().await;
    let (_, _, ext) = s.rpc_with("GetExtendedAgentCard", json!({}), &[ALL]).await;
    let card = &ext["result"];
    let describe = msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "secret_op"}}));
    let (_, _, limited) = s
        .rpc_with("SendMessage", describe.clone(), &[LIMITED])
        .await;
    assert!(
        limited.to_string().contains("interface_unavailable"),
        "{limited}"
    );
    let (_, _, allowed) = s.rpc_with("SendMessage", describe, &[ALL]).await;
    assert_eq!(
        task_of(&allowed)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{allowed}"
    );

    let call = msg(request(card, "secret_op", json!({})));
    let (_, _, limited) = s.rpc_with("SendMessage", call.clone(), &[LIMITED]).await;
    let err = error_object(task_of(&limited));
    assert_eq!(err["code"], "interface_unavailable", "{limited}");
    let (_, _, allowed) = s.rpc_with("SendMessage", call, &[ALL]).await;
    assert_eq!(
        task_of(&allowed)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{allowed}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn without_extended_skills_or_auth_there_is_no_extended_card() {
    let s = start_server().await;
    assert_eq!(s.card().await["capabilities"]["extendedAgentCard"], false);
    let r = s.rpc("GetExtendedAgentCard", json!({})).await;
    assert_eq!(r["error"]["code"], -32004, "{r}");
    s.shutdown().await;
    // Extended-only skills but no authentication: nobody can be shown them.
    let s = Server::start(extended_agent(), ServerConfig::default()).await;
    let card = s.card().await;
    assert_eq!(card["capabilities"]["extendedAgentCard"], false);
    assert!(!ids(&card).contains(&"secret_op".to_owned()));
    assert_eq!(
        s.rpc("GetExtendedAgentCard", json!({})).await["error"]["code"],
        -32004
    );
    s.shutdown().await;
}

#[cfg(feature = "console")]
#[tokio::test]
async fn the_console_shows_an_extended_skill_only_to_callers_allowed_to_see_it() {
    let s = start().await;
    let html = ("Accept", "text/html");
    let (status, _, index) = s.get_raw("/", &[html]).await;
    assert_eq!(status, 200);
    assert!(index.contains("/console/skills/evaluate_resource_condition"));
    assert!(!index.contains("secret_op"), "{index}");
    let path = "/console/skills/secret_op";
    assert_eq!(s.get_raw(path, &[html]).await.0, 401);
    let (status, _, page) = s.get_raw(path, &[html, LIMITED]).await;
    assert_eq!(status, 404);
    assert!(!page.contains("urn:test:secret"), "{page}");
    let (status, _, page) = s.get_raw(path, &[html, ALL]).await;
    assert_eq!(status, 200);
    assert!(page.contains("urn:test:secret:input"), "{page}");
    s.shutdown().await;
}

#[tokio::test]
async fn with_a_signing_key_the_extended_card_is_signed_like_the_public_one() {
    let data = |f: &str| {
        std::fs::read(format!(
            "{}/../skillgate-sign/tests/data/{f}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let key =
        skillgate_sign::SigningKey::from_pem(&data("es256.pem"), "es256", None, None).unwrap();
    let keys = skillgate_sign::TrustedKeys::from_json(&data("jwks.json")).unwrap();
    let config = ServerConfig {
        tokens: Some(TokenTable::parse("all-secret-0123456789\n").unwrap()),
        card_signer: Some(std::sync::Arc::new(key)),
        ..Default::default()
    };
    let s = Server::start(extended_agent(), config).await;
    let public = s.card().await;
    assert_eq!(skillgate_sign::verify(&public, &keys).unwrap().kid, "es256");
    let (_, _, r) = s.rpc_with("GetExtendedAgentCard", json!({}), &[ALL]).await;
    let ext = &r["result"];
    assert!(ids(ext).contains(&"secret_op".to_owned()), "{r}");
    assert_eq!(
        skillgate_sign::verify(ext, &keys).unwrap().kid,
        "es256",
        "{r}"
    );
    s.shutdown().await;
}
