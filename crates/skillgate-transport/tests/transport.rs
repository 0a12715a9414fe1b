//! The transport against a real HTTP server on an ephemeral loopback port.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use skillgate_a2a::{Message, Part, Role, SendMessageRequest};
use skillgate_transport::{
    Binding, Endpoint, ExtraHeader, Interface, Transport, TransportConfig, TransportError, Withheld,
};
use url::Url;

/// What the server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    headers: HeaderMap,
    body: String,
}

type Log = Arc<Mutex<Vec<Seen>>>;

async fn handler(
    State(log): State<Log>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let path = uri.path().to_owned();
    log.lock().unwrap().push(Seen {
        method,
        path: path.clone(),
        headers,
        body,
    });
    let redirect =
        |to: &str| (StatusCode::FOUND, [("location", to.to_owned())], "").into_response();
    match path.as_str() {
        "/away" => redirect("http://example.com/card.json"),
        // `/to/307/URL`: a redirect of that status to URL (another origin, in the tests).
        p if p.starts_with("/to/") => {
            let (code, to) = p[4..].split_once('/').unwrap();
            let code = StatusCode::from_bytes(code.as_bytes()).unwrap();
            (code, [("location", format!("http://{to}"))], "").into_response()
        }
        "/slowhop" => {
            // Each hop is quick enough alone; four together are not.
            tokio::time::sleep(Duration::from_millis(250)).await;
            redirect("/slowhop")
        }
        p if p.starts_with("/hop") => {
            let n: u32 = p[4..].parse().unwrap_or(0);
            redirect(&format!("/hop{}", n + 1))
        }
        "/big" => {
            // Chunked, no Content-Length: the limit must hold while the body streams in.
            let chunks = (0..64).map(|_| Ok::<_, std::io::Error>(vec![b' '; 1024]));
            Response::new(Body::from_stream(futures_util::stream::iter(chunks)))
        }
        "/stream" => (
            [("content-type", "text/event-stream")],
            "data: {\"a\":1}\r\rdata: {\"b\":2}\n\n",
        )
            .into_response(),
        _ => (
            [
                ("content-type", "application/json"),
                ("a2a-extensions", "x"),
            ],
            "{}",
        )
            .into_response(),
    }
}

async fn server() -> (String, Log) {
    let log: Log = Arc::default();
    let app = Router::new().fallback(handler).with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), log)
}

fn transport(config: TransportConfig) -> Transport {
    Transport::new(config).unwrap()
}

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn request() -> SendMessageRequest {
    SendMessageRequest {
        message: Message {
            message_id: "m1".into(),
            role: Role::User,
            parts: vec![Part::data(serde_json::json!({"x": 1}))],
            ..Message::default()
        },
        ..SendMessageRequest::default()
    }
}

#[tokio::test]
async fn a_redirect_to_plain_http_elsewhere_is_refused() {
    let (base, _) = server().await;
    let e = transport(TransportConfig::default())
        .get_card(&url(&format!("{base}/away")))
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Redirect { .. }), "{e:?}");
    assert!(e.to_string().contains("refusing plain HTTP"), "{e}");
}

#[tokio::test]
async fn redirects_are_counted() {
    let (base, log) = server().await;
    let e = transport(TransportConfig::default())
        .get_card(&url(&format!("{base}/hop0")))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("more than 3 redirects"), "{e}");
    assert_eq!(log.lock().unwrap().len(), 4);
}

#[tokio::test]
async fn the_limit_holds_while_a_chunked_body_streams_in() {
    let (base, _) = server().await;
    let t = transport(TransportConfig {
        card_limit: 10_000,
        ..TransportConfig::default()
    });
    let e = t.get_card(&url(&format!("{base}/big"))).await.unwrap_err();
    assert!(
        matches!(e, TransportError::TooLarge { limit: 10_000, .. }),
        "{e:?}"
    );
    assert_eq!(e.code(), "too_large");
}

#[tokio::test]
async fn passwords_never_reach_an_error_message() {
    // Port 1 on loopback refuses the connection.
    let e = transport(TransportConfig::default())
        .get_card(&url("http://alice:S3cret@127.0.0.1:1/card.json"))
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Connect { .. }), "{e:?}");
    let shown = e.to_string();
    assert!(!shown.contains("S3cret"), "{shown}");
    assert!(shown.contains("the agent at http://"), "{shown}");
    assert!(
        shown.contains("not reachable (connection refused): is it running?"),
        "{shown}"
    );
    assert!(shown.contains("127.0.0.1:1/card.json"), "{shown}");
}

#[tokio::test]
async fn plain_http_to_a_remote_host_is_refused_before_sending() {
    let e = transport(TransportConfig::default())
        .get_card(&url("http://example.com/card.json"))
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Refused(_)), "{e:?}");
}

#[tokio::test]
async fn headers_token_and_activation() {
    let (base, log) = server().await;
    let t = transport(TransportConfig {
        token: Some("tok-0123456789abcdef".into()),
        credential_origins: vec![url(&base).origin()],
        ..TransportConfig::default()
    });
    t.get_card(&url(&format!("{base}/card.json")))
        .await
        .unwrap();
    let iface = Interface {
        url: url(&format!("{base}/rpc")),
        binding: Binding::JsonRpc,
        tenant: String::new(),
        version: skillgate_a2a::version::WireVersion::V1_0,
    };
    let sent = Endpoint::new(t, iface)
        .send_message(&request(), true)
        .await
        .unwrap();
    assert_eq!(sent.reply.extensions.as_deref(), Some("x"));
    let seen = log.lock().unwrap().clone();
    let card = &seen[0].headers;
    assert_eq!(card["authorization"], "Bearer tok-0123456789abcdef");
    assert_eq!(card["a2a-version"], "1.0");
    assert!(card.get("a2a-extensions").is_none());
    let rpc = &seen[1];
    assert_eq!(
        rpc.headers["a2a-extensions"],
        skillgate_core::wire::EXTENSION_URI
    );
    assert_eq!(rpc.headers["content-type"], "application/json");
    let body: serde_json::Value = serde_json::from_str(&rpc.body).unwrap();
    assert_eq!(body["method"], "SendMessage");
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(
        Some(body["id"].clone()),
        sent.request_id.map(|id| serde_json::to_value(id).unwrap())
    );
    assert_eq!(body["params"]["message"]["messageId"], "m1");
}

#[tokio::test]
async fn rest_operations_go_to_their_paths_under_the_tenant() {
    let (base, log) = server().await;
    let iface = Interface {
        url: url(&format!("{base}/rest/")),
        binding: Binding::HttpJson,
        tenant: "t1".into(),
        version: skillgate_a2a::version::WireVersion::V1_0,
    };
    let e = Endpoint::new(transport(TransportConfig::default()), iface);
    e.send_message(&request(), false).await.unwrap();
    e.get_task("a/b").await.unwrap();
    e.cancel_task("x").await.unwrap();
    let (id, open) = e.subscribe("x").await.unwrap();
    assert!(id.is_none());
    open.rest().await.unwrap();
    let (_, s) = e.stream_message(&request(), true).await.unwrap();
    s.rest().await.unwrap();
    let seen: Vec<(Method, String)> = log
        .lock()
        .unwrap()
        .iter()
        .map(|s| (s.method.clone(), s.path.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            (Method::POST, "/rest/t1/message:send".to_owned()),
            (Method::GET, "/rest/t1/tasks/a%2Fb".to_owned()),
            (Method::POST, "/rest/t1/tasks/x:cancel".to_owned()),
            (Method::GET, "/rest/t1/tasks/x:subscribe".to_owned()),
            (Method::POST, "/rest/t1/message:stream".to_owned()),
        ]
    );
    let first = &log.lock().unwrap()[0];
    assert_eq!(first.headers["content-type"], "application/a2a+json");
    assert!(first.headers.get("a2a-extensions").is_none());
}

#[tokio::test]
async fn event_streams_decode_through_the_transport() {
    let (base, _) = server().await;
    let t = transport(TransportConfig::default());
    let mut s = t
        .get(&url(&format!("{base}/stream")), "text/event-stream", true)
        .await
        .unwrap();
    assert!(s.is_event_stream());
    let mut data = Vec::new();
    while let Some(events) = s.events().await.unwrap() {
        data.extend(events.into_iter().map(|e| e.data));
    }
    assert_eq!(data, ["{\"a\":1}", "{\"b\":2}"]);
}

#[tokio::test]
async fn the_overall_timeout_bounds_a_request() {
    // A listener that accepts and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    let t = transport(TransportConfig {
        timeout: Duration::from_millis(300),
        ..TransportConfig::default()
    });
    let e = t
        .get_card(&url(&format!("http://{addr}/c.json")))
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Timeout { .. }), "{e:?}");
}

/// A transport with a token and an extra header whose credentials go to `allowed` only, and
/// the list of origins it reported as refused.
fn with_credentials(allowed: &[&str]) -> (Transport, Arc<Mutex<Vec<String>>>) {
    let named: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&named);
    let t = transport(TransportConfig {
        token: Some("tok-0123456789abcdef".into()),
        headers: vec![ExtraHeader::parse("X-Api-Key: key-0123456789").unwrap()],
        credential_origins: allowed.iter().map(|o| url(o).origin()).collect(),
        withheld: Some(Withheld::new(move |o| {
            sink.lock().unwrap().push(o.to_owned())
        })),
        ..TransportConfig::default()
    });
    (t, named)
}

fn credentials_seen(log: &Log) -> Vec<(String, bool, bool)> {
    log.lock()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s.path.clone(),
                s.headers.contains_key("authorization"),
                s.headers.contains_key("x-api-key"),
            )
        })
        .collect()
}

#[tokio::test]
async fn credentials_do_not_follow_a_card_or_a_redirect_to_another_origin() {
    let (home, home_log) = server().await;
    let (other, other_log) = server().await;
    let other_host = other.trim_start_matches("http://");
    let (t, named) = with_credentials(&[&home]);
    // The card request is redirected to the other origin: followed, without credentials.
    t.get_card(&url(&format!("{home}/to/302/{other_host}/card.json")))
        .await
        .unwrap();
    // A 307 keeps the method and the body, still without credentials.
    let moved = t
        .post(
            &url(&format!("{home}/to/307/{other_host}/rpc")),
            "application/json",
            "application/json",
            false,
            b"{}".to_vec(),
        )
        .await
        .unwrap();
    assert_eq!(moved.url.as_str(), format!("{other}/rpc"));
    // An interface the card names on the other origin.
    let iface = Interface {
        url: url(&format!("{other}/rpc")),
        binding: Binding::JsonRpc,
        tenant: String::new(),
        version: skillgate_a2a::version::WireVersion::V1_0,
    };
    Endpoint::new(t, iface)
        .send_message(&request(), true)
        .await
        .unwrap();
    assert_eq!(
        credentials_seen(&home_log),
        vec![
            (
                "/to/302/".to_owned() + other_host + "/card.json",
                true,
                true
            ),
            ("/to/307/".to_owned() + other_host + "/rpc", true, true),
        ]
    );
    assert_eq!(
        credentials_seen(&other_log),
        vec![
            ("/card.json".to_owned(), false, false),
            ("/rpc".to_owned(), false, false),
            ("/rpc".to_owned(), false, false),
        ]
    );
    let seen = other_log.lock().unwrap().clone();
    assert_eq!(seen[1].method, Method::POST);
    assert_eq!(seen[1].body, "{}");
    assert_eq!(*named.lock().unwrap(), vec![other.clone()]);
}

#[tokio::test]
async fn an_allowed_origin_gets_the_credentials_and_no_notice() {
    let (home, _) = server().await;
    let (other, other_log) = server().await;
    let other_host = other.trim_start_matches("http://");
    let (t, named) = with_credentials(&[&home, &other]);
    t.get_card(&url(&format!("{home}/to/302/{other_host}/card.json")))
        .await
        .unwrap();
    assert_eq!(
        credentials_seen(&other_log),
        vec![("/card.json".to_owned(), true, true)]
    );
    assert!(named.lock().unwrap().is_empty());
}

#[tokio::test]
async fn the_overall_timeout_covers_every_redirect_hop() {
    let (base, log) = server().await;
    let t = transport(TransportConfig {
        timeout: Duration::from_millis(600),
        ..TransportConfig::default()
    });
    let e = t
        .get_card(&url(&format!("{base}/slowhop")))
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Timeout { .. }), "{e:?}");
    assert!(log.lock().unwrap().len() <= 3);
}
