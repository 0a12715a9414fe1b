//! Bounded HTTP: every request has connect, read and overall timeouts, at most three
//! redirects, a body-size limit enforced while the body streams in, and a scheme policy
//! (HTTPS unless the host is loopback or plain HTTP was explicitly allowed).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::{redirect, StatusCode};
use url::Url;

use crate::error::{ClientError, Step};

/// Default limit on an Agent Card body (1 MiB).
pub const DEFAULT_CARD_LIMIT: usize = 1024 * 1024;
/// Default limit on any other response body, including a whole event stream (4 MiB).
pub const DEFAULT_RESPONSE_LIMIT: usize = 4 * 1024 * 1024;
/// Redirects followed at most; more is a transport failure.
pub const MAX_REDIRECTS: usize = 3;

/// Everything that bounds or authenticates the client's requests.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Largest accepted Agent Card, in bytes.
    pub card_limit: usize,
    /// Largest accepted response body (and event stream), in bytes.
    pub response_limit: usize,
    /// Time allowed to establish a connection.
    pub connect_timeout: Duration,
    /// Longest pause allowed between two reads of a response.
    pub read_timeout: Duration,
    /// Longest time one request may take, body included (a stream included).
    pub timeout: Duration,
    /// Permit plain `http://` to hosts that are not loopback.
    pub allow_http: bool,
    /// Bearer token sent as `Authorization: Bearer …`.
    pub token: Option<String>,
    /// Directory of the on-disk interface cache; `None` keeps the cache in memory only.
    pub cache_dir: Option<PathBuf>,
    /// Extra trusted root certificates (PEM), added to the platform's roots, for agents
    /// behind a private CA.
    pub ca_certificates: Vec<Vec<u8>>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            card_limit: DEFAULT_CARD_LIMIT,
            response_limit: DEFAULT_RESPONSE_LIMIT,
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(15),
            timeout: Duration::from_secs(30),
            allow_http: false,
            token: None,
            cache_dir: None,
            ca_certificates: Vec::new(),
        }
    }
}

/// The user's default cache directory for interfaces: `$XDG_CACHE_HOME/skillgate/interfaces`
/// or `$HOME/.cache/skillgate/interfaces`.
pub fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("skillgate").join("interfaces"))
}

pub use skillgate_a2a::url_policy::{check_scheme, is_loopback};

/// A body read completely within its limit, with the response's metadata.
#[derive(Debug)]
pub struct Body {
    /// HTTP status.
    pub status: StatusCode,
    /// `Content-Type`, lower-cased, without parameters (empty if absent).
    pub content_type: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// An open response whose body is read in bounded chunks (used for event streams).
pub struct Streaming {
    /// HTTP status.
    pub status: StatusCode,
    /// `Content-Type`, lower-cased, without parameters.
    pub content_type: String,
    response: reqwest::Response,
    limit: usize,
    read: usize,
    step: Step,
}

impl Streaming {
    /// The next chunk, or `None` at the end; fails once the total exceeds the limit.
    pub async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ClientError> {
        match self.response.chunk().await {
            Ok(Some(c)) => {
                self.read = self.read.saturating_add(c.len());
                if self.read > self.limit {
                    return Err(ClientError::transport(
                        self.step,
                        format!("response larger than the {} byte limit", self.limit),
                    ));
                }
                Ok(Some(c.to_vec()))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(transport_error(self.step, &e)),
        }
    }

    /// Reads the remaining body within the limit.
    pub async fn rest(mut self) -> Result<Body, ClientError> {
        let mut bytes = Vec::new();
        while let Some(c) = self.chunk().await? {
            bytes.extend_from_slice(&c);
        }
        Ok(Body {
            status: self.status,
            content_type: self.content_type,
            bytes,
        })
    }
}

/// The bounded HTTP client shared by every step.
#[derive(Clone)]
pub struct Http {
    client: reqwest::Client,
    config: Arc<ClientConfig>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http").finish_non_exhaustive()
    }
}

fn transport_error(step: Step, e: &reqwest::Error) -> ClientError {
    // reqwest's own Display is generic; the source chain holds the actual reason (the
    // redirect policy's message, the connection error, ...).
    let mut chain = Vec::new();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = src {
        chain.push(s.to_string());
        src = s.source();
    }
    let what = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_redirect() {
        chain
            .last()
            .cloned()
            .unwrap_or_else(|| "redirect refused".to_owned())
    } else if e.is_connect() {
        format!("connection failed: {}", chain.join(": "))
    } else if chain.is_empty() {
        e.to_string()
    } else {
        chain.join(": ")
    };
    let url = e.url().map(|u| format!(" ({u})")).unwrap_or_default();
    ClientError::transport(step, format!("{what}{url}"))
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

impl Http {
    /// Builds the client; installs the ring crypto provider for rustls if none is installed.
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        // Ignored error: a provider is already installed process-wide, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let allow_http = config.allow_http;
        let policy = redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else if let Err(e) = check_scheme(attempt.url(), allow_http) {
                attempt.error(format!("redirect refused: {e}"))
            } else {
                attempt.follow()
            }
        });
        let mut roots = Vec::new();
        for pem in &config.ca_certificates {
            let certs = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| ClientError::usage(format!("not a PEM certificate: {e}")))?;
            if certs.is_empty() {
                return Err(ClientError::usage("no certificate in the PEM data"));
            }
            roots.extend(certs);
        }
        let client = reqwest::Client::builder()
            .tls_certs_merge(roots)
            .connect_timeout(config.connect_timeout)
            .read_timeout(config.read_timeout)
            .timeout(config.timeout)
            .redirect(policy)
            .user_agent(concat!("skillgate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ClientError::usage(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            client,
            config: Arc::new(config),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Parses an absolute URL and applies the scheme policy.
    pub fn parse_url(&self, s: &str) -> Result<Url, String> {
        let url = Url::parse(s).map_err(|e| format!("{s:?} is not an absolute URL: {e}"))?;
        check_scheme(&url, self.config.allow_http)?;
        Ok(url)
    }

    fn headers(&self, accept: &str, extensions: bool) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(accept) {
            h.insert(ACCEPT, v);
        }
        h.insert(
            skillgate_a2a::A2A_VERSION_HEADER,
            HeaderValue::from_static(skillgate_a2a::PROTOCOL_VERSION),
        );
        if extensions {
            h.insert(
                skillgate_a2a::A2A_EXTENSIONS_HEADER,
                HeaderValue::from_static(skillgate_core::wire::EXTENSION_URI),
            );
        }
        if let Some(token) = &self.config.token {
            if let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {token}")) {
                v.set_sensitive(true);
                h.insert(AUTHORIZATION, v);
            }
        }
        h
    }

    async fn open(
        &self,
        step: Step,
        request: reqwest::RequestBuilder,
        limit: usize,
    ) -> Result<Streaming, ClientError> {
        let response = request
            .send()
            .await
            .map_err(|e| transport_error(step, &e))?;
        if let Some(len) = response.content_length() {
            if len > limit as u64 {
                return Err(ClientError::transport(
                    step,
                    format!("response of {len} bytes exceeds the {limit} byte limit"),
                ));
            }
        }
        Ok(Streaming {
            status: response.status(),
            content_type: content_type(response.headers()),
            response,
            limit,
            read: 0,
            step,
        })
    }

    /// `GET` an Agent Card within the card limit.
    pub async fn get_card(&self, url: &Url) -> Result<Body, ClientError> {
        let req = self
            .client
            .get(url.clone())
            .headers(self.headers(skillgate_a2a::MEDIA_TYPE_JSON, false));
        self.open(Step::FetchCard, req, self.config.card_limit)
            .await?
            .rest()
            .await
    }

    /// `POST` a JSON body and read the whole response within the response limit.
    pub async fn post_json(
        &self,
        step: Step,
        url: &Url,
        content_type: &str,
        body: Vec<u8>,
    ) -> Result<Body, ClientError> {
        self.post_open(
            step,
            url,
            content_type,
            skillgate_a2a::MEDIA_TYPE_JSON,
            body,
        )
        .await?
        .rest()
        .await
    }

    /// `POST` a JSON body and return the open response (for event streams).
    pub async fn post_open(
        &self,
        step: Step,
        url: &Url,
        content_type: &str,
        accept: &str,
        body: Vec<u8>,
    ) -> Result<Streaming, ClientError> {
        let mut headers = self.headers(accept, true);
        if let Ok(v) = HeaderValue::from_str(content_type) {
            headers.insert(CONTENT_TYPE, v);
        }
        let req = self.client.post(url.clone()).headers(headers).body(body);
        self.open(step, req, self.config.response_limit).await
    }

    /// `GET` a JSON resource (HTTP+JSON `GetTask`) within the response limit.
    pub async fn get_json(&self, step: Step, url: &Url) -> Result<Body, ClientError> {
        let req = self
            .client
            .get(url.clone())
            .headers(self.headers(skillgate_a2a::MEDIA_TYPE_A2A_JSON, true));
        self.open(step, req, self.config.response_limit)
            .await?
            .rest()
            .await
    }
}
