//! The real `skillgate-server` runtime on an ephemeral loopback port (127.0.0.1:0), with a
//! real HTTP client for its bindings: tests exercise the shipped code, never a stand-in.

use std::time::Duration;

use serde_json::{json, Value};
use skillgate_runtime::{Agent, ServerConfig};
use skillgate_server::serve;

use crate::requests::{send_params, skill_request};

/// A running `skillgate-server`. Dropping it asks the server to stop (without waiting);
/// [`TestServer::shutdown`] stops it and fails the test if serving failed.
pub struct TestServer {
    /// Its base URL, `http://127.0.0.1:<port>`.
    pub base: String,
    /// A client with no proxy and a 20 s timeout (reqwest with the ring provider installed).
    pub client: reqwest::Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    /// The serving task; `None` once [`TestServer::shutdown`] took it, or when the server runs
    /// on its own thread ([`TestServer::on_thread`]).
    pub handle: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    /// Serves `agent` with `config` as a task of the calling test's tokio runtime.
    pub async fn start(agent: Agent, config: ServerConfig) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let handle = tokio::spawn(serve(agent, listener, config, async move {
            let _ = rx.await;
        }));
        TestServer {
            base,
            client: http_client(),
            stop: Some(tx),
            handle: Some(handle),
        }
    }

    /// Serves the agent `make` builds on a runtime of its own thread (two workers), so that a
    /// synchronous test (one that runs the CLI binary, say) can use it; returns once the port
    /// is bound.
    pub fn on_thread(
        make: impl FnOnce() -> Agent + Send + 'static,
        config: ServerConfig,
    ) -> TestServer {
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(format!("http://{}", listener.local_addr().unwrap()))
                    .unwrap();
                serve(make(), listener, config, async move {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
            });
        });
        TestServer {
            base: rx.recv().unwrap(),
            client: http_client(),
            stop: Some(stop_tx),
            handle: None,
        }
    }

    /// Stops the server and waits for `serve` to return, failing if it returned an error.
    pub async fn shutdown(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(h) = self.handle.take() {
            h.await.unwrap().unwrap();
        }
    }

    /// The A2A 1.0 Agent Card from `/.well-known/agent-card.json`, parsed (see [`agent_card`]).
    pub async fn card(&self) -> Value {
        agent_card(&self.client, &self.base).await
    }

    /// A raw POST of `body` to `path` with exactly these headers; returns status, headers and
    /// the body text.
    pub async fn post_raw(
        &self,
        path: &str,
        body: impl Into<reqwest::Body>,
        headers: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, String) {
        let mut rb = self
            .client
            .post(format!("{}{}", self.base, path))
            .body(body);
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        let r = rb.send().await.unwrap();
        let status = r.status().as_u16();
        let h = r.headers().clone();
        (status, h, r.text().await.unwrap())
    }

    /// A raw GET of `path` with exactly these headers; returns status, headers and body text.
    pub async fn get_raw(
        &self,
        path: &str,
        headers: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, String) {
        let mut rb = self.client.get(format!("{}{}", self.base, path));
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        let r = rb.send().await.unwrap();
        let status = r.status().as_u16();
        let h = r.headers().clone();
        (status, h, r.text().await.unwrap())
    }

    /// A JSON-RPC call to `/` with `A2A-Version: 1.0` plus `headers`; returns status, headers
    /// and the body as JSON (a JSON string holding the text if the body is not JSON).
    pub async fn rpc_with(
        &self,
        method: &str,
        params: Value,
        headers: &[(&str, &str)],
    ) -> (u16, reqwest::header::HeaderMap, Value) {
        let body = rpc_body(method, params).to_string();
        let mut h = vec![("Content-Type", "application/json"), ("A2A-Version", "1.0")];
        h.extend_from_slice(headers);
        let (s, hd, text) = self.post_raw("/", body, &h).await;
        let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (s, hd, v)
    }

    /// Starts a task of the governed `skill` with `arguments` (version and digest from the
    /// card) and returns its id without waiting for it (`returnImmediately`).
    pub async fn start_task(&self, skill: &str, arguments: Value) -> String {
        let card = self.card().await;
        let mut params = send_params(skill_request(&card, skill, arguments));
        params["configuration"] = json!({"returnImmediately": true});
        let v = self.rpc("SendMessage", params).await;
        v["result"]["task"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no task: {v}"))
            .to_owned()
    }

    /// A JSON-RPC call with no extra headers; returns only the body (see [`Self::rpc_with`]).
    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        self.rpc_with(method, params, &[]).await.2
    }

    /// An HTTP+JSON call (`GET`, or else POST with the JSON `body`) with `A2A-Version: 1.0`;
    /// returns status and the body as JSON (a JSON string if it is not JSON).
    pub async fn rest(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}{}", self.base, path);
        let mut rb = match method {
            "GET" => self.client.get(url),
            _ => self.client.post(url),
        }
        .header("A2A-Version", "1.0");
        if let Some(b) = body {
            rb = rb
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        let r = rb.send().await.unwrap();
        let s = r.status().as_u16();
        let text = r.text().await.unwrap();
        (
            s,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// The skill `hold`: cancelable, reports the progress "holding", then waits until it is
/// canceled (60 s at most). A task that stays open for task-view and cancel tests.
pub fn hold_skill() -> skillgate_runtime::Skill {
    use skillgate_core::wire::{Interaction, ResponseMode};
    use skillgate_runtime::{Skill, SkillContext, SkillError, SkillOutput};
    let any = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"});
    Skill::builder("hold", "1.0")
        .input_schema("urn:testkit:hold:input", "1.0", any.clone())
        .output_schema("urn:testkit:hold:output", "1.0", any)
        .interaction(Interaction {
            response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll],
            cancelable: true,
        })
        .handler(|_args: Value, ctx: SkillContext| async move {
            ctx.progress("holding").await;
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs(60)) => Ok(SkillOutput::new(json!({}))),
                _ = ctx.cancelled() => Err(SkillError::execution_failed("canceled")),
            }
        })
        .build()
}

/// A JSON-RPC 2.0 request object (id 1).
pub fn rpc_body(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// The A2A 1.0 Agent Card served at `base` (`/.well-known/agent-card.json`, asked for with
/// `A2A-Version: 1.0`: without it a server that also speaks 0.3 answers its 0.3 card), parsed;
/// for harnesses other than [`TestServer`] (the gRPC tests' pair of servers, say).
pub async fn agent_card(client: &reqwest::Client, base: &str) -> Value {
    let r = client
        .get(format!("{base}/.well-known/agent-card.json"))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    serde_json::from_str(&r.text().await.unwrap()).unwrap()
}

/// A JSON-RPC call to `{base}/` with `A2A-Version: 1.0`; the whole response body, which must
/// be JSON. For harnesses other than [`TestServer`] (whose [`TestServer::rpc`] also takes a
/// body that is not JSON).
pub async fn json_rpc(client: &reqwest::Client, base: &str, method: &str, params: Value) -> Value {
    let r = client
        .post(format!("{base}/"))
        .header("Content-Type", "application/json")
        .header("A2A-Version", "1.0")
        .body(rpc_body(method, params).to_string())
        .send()
        .await
        .unwrap();
    let text = r.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A reqwest client builder for loopback tests: the workspace's client base (crypto provider,
/// no automatic redirect, so a test sees each one), no proxy, a 20 s timeout.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    skillgate_platform::http::client_builder("test")
        .no_proxy()
        .timeout(Duration::from_secs(20))
}

/// [`http_client_builder`]'s client, following up to 10 redirects like a browser would.
pub fn http_client() -> reqwest::Client {
    http_client_builder()
        .redirect(reqwest::redirect::Policy::limited(10))
        .build()
        .unwrap()
}

/// Parses a `text/event-stream` body into the JSON of each event's (joined) `data:` lines;
/// events without data are skipped, and data that is not JSON fails the test.
pub fn sse_events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|ev| {
            let data: Vec<&str> = ev
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            (!data.is_empty()).then(|| serde_json::from_str(&data.join("\n")).unwrap())
        })
        .collect()
}
