//! Connection limits: the header-read and idle timers, the cap on open calls, and requests
//! whose bytes are not a valid protobuf message. Silent and half-open peers are real sockets;
//! undecodable requests go through a raw HTTP/2 client (a tonic client cannot send them).

use crate::common::*;
use bytes::Bytes;
use serde_json::json;
use skillgate_grpc::{pb, GrpcConfig};
use skillgate_runtime::ServerConfig;
use skillgate_testkit::poll::eventually;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tonic::codegen::http;
use tonic::Code;

fn describe() -> pb::SendMessageRequest {
    send(json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}))
}

/// A describe_skill call on a new connection, or `None` if it failed or took over 2 s.
async fn one_call(addr: &str) -> Option<pb::SendMessageResponse> {
    let attempt = async {
        let mut c = pb::a2a_service_client::A2aServiceClient::connect(format!("http://{addr}"))
            .await
            .ok()?;
        c.send_message(req(describe(), &[]))
            .await
            .ok()
            .map(|r| r.into_inner())
    };
    tokio::time::timeout(Duration::from_secs(2), attempt)
        .await
        .ok()
        .flatten()
}

/// The `grpc-status` and `grpc-message` of a call of `path` whose request message is the bytes
/// `message`, sent over a raw HTTP/2 connection.
async fn raw_call(addr: &str, path: &str, message: &[u8]) -> (String, String) {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (mut client, conn) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(conn);
    let request = http::Request::post(format!("http://{addr}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("a2a-version", "1.0")
        .body(())
        .unwrap();
    let (response, mut body) = client.send_request(request, false).unwrap();
    let mut framed = vec![0u8];
    framed.extend(u32::try_from(message.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(message);
    body.send_data(Bytes::from(framed), true).unwrap();
    let response = tokio::time::timeout(Duration::from_secs(5), response)
        .await
        .expect("an answer within 5 s")
        .unwrap();
    let pick = |h: &http::HeaderMap| {
        let get = |k: &str| {
            h.get(k)
                .map(|v| v.to_str().unwrap().to_owned())
                .unwrap_or_default()
        };
        (get("grpc-status"), get("grpc-message"))
    };
    if response.headers().contains_key("grpc-status") {
        return pick(response.headers()); // trailers-only
    }
    let mut body = response.into_body();
    while let Some(chunk) = body.data().await {
        chunk.unwrap();
    }
    pick(&body.trailers().await.unwrap().unwrap())
}

#[tokio::test]
async fn silent_connections_do_not_lock_clients_out_past_the_header_read_timeout() {
    let grpc = GrpcConfig {
        max_connections: 3,
        header_read_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let s = Both::start_full(agent(), ServerConfig::default(), grpc).await;
    let mut silent = Vec::new();
    for _ in 0..3 {
        silent.push(TcpStream::connect(&s.grpc_addr).await.unwrap());
    }
    // Every slot is held by a connection that never sends a byte; once the header-read
    // timeout closes them, a real client gets through.
    let answer = eventually(Duration::from_secs(5), || one_call(&s.grpc_addr)).await;
    assert!(answer.payload.is_some());
    for mut tcp in silent {
        // The server's SETTINGS frame, then the end of the stream (or a reset).
        let mut seen = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(2), tcp.read_to_end(&mut seen)).await;
        assert!(read.is_ok(), "the silent connection is still open");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn an_http2_connection_with_no_call_is_closed_after_the_idle_timeout() {
    let grpc = GrpcConfig {
        idle_timeout: Duration::from_millis(400),
        ..Default::default()
    };
    let s = Both::start_full(agent(), ServerConfig::default(), grpc).await;
    let tcp = TcpStream::connect(&s.grpc_addr).await.unwrap();
    let (mut client, conn) = h2::client::handshake(tcp).await.unwrap();
    // The connection task answers the server's pings until the server closes the connection.
    let conn = tokio::spawn(conn);
    let request = http::Request::post(format!(
        "http://{}/lf.a2a.v1.A2AService/GetTask",
        s.grpc_addr
    ))
    .header("content-type", "application/grpc")
    .header("te", "trailers")
    .body(())
    .unwrap();
    let (response, mut body) = client.send_request(request, false).unwrap();
    body.send_data(Bytes::from_static(&[0, 0, 0, 0, 0]), true)
        .unwrap();
    let mut answer = response.await.unwrap().into_body();
    while answer.data().await.is_some() {}
    // One call answered; now nothing more is sent.
    let closed = tokio::time::timeout(Duration::from_secs(5), conn).await;
    assert!(
        closed.is_ok(),
        "the idle connection is still open after 5 s"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_long_stream_is_not_cut_by_the_idle_timeout() {
    let grpc = GrpcConfig {
        idle_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let s = Both::start_full(agent(), ServerConfig::default(), grpc).await;
    let card = s.card().await;
    let mut c = s.client().await;
    let m = send(call(&card, "echo", json!({"n": 7, "ms": 1200})));
    let mut stream = c
        .send_streaming_message(req(m, &[]))
        .await
        .unwrap()
        .into_inner();
    let mut events = 0;
    while let Some(ev) = stream.message().await.unwrap() {
        events += 1;
        let _ = ev;
    }
    assert!(events >= 1);
    s.shutdown().await;
}

#[tokio::test]
async fn calls_past_the_open_call_cap_are_resource_exhausted() {
    let grpc = GrpcConfig {
        max_open_calls: 1,
        ..Default::default()
    };
    let s = Both::start_full(agent(), ServerConfig::default(), grpc).await;
    let card = s.card().await;
    let mut c = s.client().await;
    let m = send(call(&card, "echo", json!({"n": 1, "ms": 3000})));
    let stream = c.send_streaming_message(req(m, &[])).await.unwrap();
    let e = c.send_message(req(describe(), &[])).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    drop(stream);
    // The slot comes back when the stream is dropped.
    let again = eventually(Duration::from_secs(5), || one_call(&s.grpc_addr)).await;
    assert!(again.payload.is_some());
    s.shutdown().await;
}

#[tokio::test]
async fn bytes_that_are_not_protobuf_are_invalid_argument() {
    let s = Both::start(ServerConfig::default()).await;
    let (code, message) = raw_call(
        &s.grpc_addr,
        "/lf.a2a.v1.A2AService/SendMessage",
        &[0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x12],
    )
    .await;
    assert_eq!(code, "3", "INVALID_ARGUMENT, not {code}: {message}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_struct_nested_past_the_decoder_depth_is_invalid_argument() {
    use prost::Message;
    let s = Both::start(ServerConfig::default()).await;
    let mut deep = json!(1);
    for _ in 0..150 {
        deep = json!({ "a": deep });
    }
    let bytes = send(json!({"skill": "echo", "arguments": deep})).encode_to_vec();
    let (code, message) = raw_call(&s.grpc_addr, "/lf.a2a.v1.A2AService/SendMessage", &bytes).await;
    assert_eq!(code, "3", "INVALID_ARGUMENT, not {code}: {message}");
    s.shutdown().await;
}
