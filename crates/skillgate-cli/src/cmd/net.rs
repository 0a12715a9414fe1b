//! The flags every command that talks to an agent shares, and the one place that turns them
//! into a transport configuration.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use skillgate_transport::{
    origin_of, Binding, ExtraHeader, HeaderError, Secret, Tracer, TransportConfig, VersionChoice,
    Withheld,
};

use super::io::read_input;

/// `--token`, `--allow-http`, `--cacert`, `--timeout`, `--header`, `--allow-credentials-to`,
/// `--a2a-version`, `--verbose`, `--quiet`. No `Debug`: it holds the token (and header values may be
/// credentials too).
#[derive(Args, Clone)]
pub struct NetArgs {
    /// Bearer token for the agent (default: $SKILLGATE_TOKEN). Sent only to the origin
    /// (scheme, host, port) of the URL given, never to another origin that the card names or
    /// a redirect leads to, unless allowed with --allow-credentials-to.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Permit plain http:// to hosts that are not loopback.
    #[arg(long)]
    allow_http: bool,
    /// Also trust the root certificates in this PEM file (repeatable), for a private CA.
    #[arg(long, value_name = "PEM_FILE")]
    cacert: Vec<PathBuf>,
    /// Overall time limit of each request, in seconds from 0.001 to 3600 (connect limit: 5 s
    /// at most).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    timeout: Duration,
    /// Add this header to every request to the origin of the URL given (repeatable), e.g.
    /// --header 'X-Api-Key: ...'. Values are never printed; like the token, they are not sent
    /// to another origin unless allowed with --allow-credentials-to.
    #[arg(long, value_name = "NAME:VALUE")]
    header: Vec<String>,
    /// Also send the token and the --header values to this origin (repeatable), e.g.
    /// --allow-credentials-to https://rpc.example.com: for an agent whose card names an
    /// interface on another origin than the card's, or that redirects there.
    #[arg(long, value_name = "ORIGIN")]
    allow_credentials_to: Vec<String>,
    /// Trace every request on stderr: method, URL (credentials removed), status, time.
    #[arg(long, short = 'v', conflicts_with = "quiet")]
    pub verbose: bool,
    /// Print the summary only (no step lines, no progress).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Require the agent's card to be signed by a key of this JWK set: an unsigned or badly
    /// signed card is refused before anything else is requested.
    #[arg(long, value_name = "JWKS.json")]
    trust_jwks: Option<PathBuf>,
    /// Which A2A version to speak to the agent: auto (an A2A 1.x interface if its card offers
    /// one, else A2A 0.3 over JSON-RPC, else over HTTP+JSON, else over gRPC), 1.0 or 0.3 (that
    /// version's interfaces only). conformance probes a 1.x JSON-RPC or HTTP+JSON interface
    /// when the card has one (auto), else the 0.3 one auto would choose; 0.3 probes the 0.3 side.
    #[arg(
        long,
        value_name = "auto|1.0|0.3",
        default_value = "auto",
        value_parser = parse_a2a_version
    )]
    a2a_version: VersionChoice,
}

/// A `--a2a-version` (or `--upstream-a2a-version`) value.
pub fn parse_a2a_version(s: &str) -> Result<VersionChoice, String> {
    s.parse()
        .map_err(|e: skillgate_transport::UnknownVersionChoice| e.to_string())
}

/// `--binding`: which of the card's bindings to use.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum BindingArg {
    /// JSON-RPC 2.0.
    Jsonrpc,
    /// HTTP+JSON (REST).
    HttpJson,
    /// gRPC over plain HTTP/2 (only when asked for: never the default).
    Grpc,
}

impl From<BindingArg> for Binding {
    fn from(b: BindingArg) -> Self {
        match b {
            BindingArg::Jsonrpc => Binding::JsonRpc,
            BindingArg::HttpJson => Binding::HttpJson,
            BindingArg::Grpc => Binding::Grpc,
        }
    }
}

/// Seconds, fractions allowed, from 0.001 (1 ms) to 3600.
fn parse_seconds(s: &str) -> Result<Duration, String> {
    const RANGE: &str = "the timeout is in seconds, from 0.001 to 3600 (e.g. 30, or 0.5)";
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds: {RANGE}"))?;
    if !(v.is_finite() && (0.001..=3600.0).contains(&v)) {
        return Err(format!("{s} is out of range: {RANGE}"));
    }
    Ok(Duration::from_secs_f64(v))
}

impl NetArgs {
    /// The token: `--token`, else a non-empty `$SKILLGATE_TOKEN`.
    pub fn token(&self) -> Option<Secret> {
        self.token
            .clone()
            .or_else(|| std::env::var("SKILLGATE_TOKEN").ok())
            .filter(|t| !t.is_empty())
            .map(Secret::from)
    }

    /// The transport configuration these flags describe for requests to `targets` (the agent
    /// URLs the user gave, whose origins receive the credentials). The certificates are read
    /// here, so an unreadable `--cacert` is reported before anything is sent.
    pub fn transport(&self, targets: &[&str]) -> Result<TransportConfig, String> {
        let mut ca_certificates = Vec::new();
        for path in &self.cacert {
            let p = path.to_string_lossy();
            ca_certificates.push(read_input(&p).map_err(|e| format!("--cacert: {e:#}"))?);
        }
        let trusted_keys = match &self.trust_jwks {
            None => None,
            Some(path) => {
                let bytes = read_input(&path.to_string_lossy())
                    .map_err(|e| format!("--trust-jwks: {e:#}"))?;
                Some(
                    skillgate_sign::TrustedKeys::from_json(&bytes)
                        .map_err(|e| format!("--trust-jwks {}: {e}", path.display()))?,
                )
            }
        };
        let mut headers = Vec::new();
        for spec in &self.header {
            headers.push(ExtraHeader::parse(spec).map_err(header_error)?);
        }
        let trace = self.verbose.then(|| {
            Tracer::new(|e| {
                errln!(
                    "skillgate: {}",
                    skillgate_transport::redact_text(&e.to_string())
                )
            })
        });
        let credential_origins = self.credential_origins(targets)?;
        Ok(TransportConfig {
            allow_http: self.allow_http,
            token: self.token(),
            ca_certificates,
            trusted_keys,
            headers,
            credential_origins,
            withheld: Some(Withheld::new(|origin| {
                errln!(
                    "skillgate: note: {origin} is another origin than the agent URL given: the \
                     token and --header values were not sent there (allow with \
                     --allow-credentials-to {origin})"
                )
            })),
            trace,
            a2a_version: self.a2a_version,
            ..TransportConfig::with_timeout(self.timeout)
        })
    }

    /// The origins of `targets` (as their Agent Card URLs) and of every
    /// `--allow-credentials-to`. A target that is no URL adds nothing: the command reports it.
    fn credential_origins(&self, targets: &[&str]) -> Result<Vec<url::Origin>, String> {
        let mut origins: Vec<url::Origin> = targets
            .iter()
            .filter_map(|t| skillgate_transport::card_url(t).ok())
            .map(|u| u.origin())
            .collect();
        for spec in &self.allow_credentials_to {
            origins.push(origin_of(spec).map_err(|e| format!("--allow-credentials-to: {e}"))?);
        }
        Ok(origins)
    }
}

/// A `--header` value's error as the CLI reports it: prefixed with the flag, and the example
/// spelled as the flag takes it.
fn header_error(e: HeaderError) -> String {
    match e {
        HeaderError::NoColon => {
            "--header: a header is NAME:VALUE, e.g. --header 'X-Request-Id: 42' (no ':' found)"
                .to_owned()
        }
        HeaderError::Reserved { name } => format!(
            "--header: header {name} is set by the transport and cannot be given with --header"
        ),
        other => format!("--header: {other}"),
    }
}
