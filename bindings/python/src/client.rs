//! The validated client for Python: `Client` (asyncio) and `BlockingClient`, both running the
//! draft's eleven client steps through [`skillgate_client::Client`]. Only options, results and
//! errors are converted here; no step is re-implemented.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use skillgate_client::{
    run_chain, Binding, ClientConfig, ClientError, InterfaceSource, Mode, Plan, Resolved,
    SkillResult,
};
use skillgate_transport::{origin_of, ExtraHeader, Secret, TransportConfig, VersionChoice};

use crate::core::InterfaceDocument;
use crate::errors::{from_client_error, raise};
use crate::json::{to_py, to_value};

/// The options of a client, as given; the transport configuration is made per set of agent
/// origins, because credentials go only to the origins of the URLs a call names.
struct Options {
    token: Option<Secret>,
    timeout: Duration,
    headers: Vec<ExtraHeader>,
    trusted_keys: Option<skillgate_sign::TrustedKeys>,
    binding: Option<Binding>,
    cache_dir: Option<std::path::PathBuf>,
    allow_http: bool,
    a2a_version: VersionChoice,
    allow_credentials_to: Vec<url::Origin>,
}

/// What `Client` and `BlockingClient` share: the options and one Rust client per set of
/// credential origins (connections and the interface cache are reused across calls).
pub(crate) struct Core {
    options: Options,
    clients: Mutex<HashMap<Vec<String>, Arc<skillgate_client::Client>>>,
}

impl Core {
    /// The Rust client whose credentials go to the origins of `targets` (and to
    /// `allow_credentials_to`), made once per set of origins.
    fn client(&self, targets: &[&str]) -> Result<Arc<skillgate_client::Client>, ClientError> {
        let mut origins: Vec<url::Origin> = targets
            .iter()
            .filter_map(|t| skillgate_transport::card_url(t).ok())
            .map(|u| u.origin())
            .collect();
        origins.extend(self.options.allow_credentials_to.iter().cloned());
        let mut key: Vec<String> = origins.iter().map(|o| o.ascii_serialization()).collect();
        key.sort();
        key.dedup();
        let mut clients = self
            .clients
            .lock()
            .map_err(|_| ClientError::usage("the client's state was poisoned by a panic"))?;
        if let Some(c) = clients.get(&key) {
            return Ok(Arc::clone(c));
        }
        let o = &self.options;
        let transport = TransportConfig {
            allow_http: o.allow_http,
            token: o.token.clone(),
            trusted_keys: o.trusted_keys.clone(),
            headers: o.headers.clone(),
            credential_origins: origins,
            a2a_version: o.a2a_version,
            ..TransportConfig::with_timeout(o.timeout)
        };
        let client = Arc::new(skillgate_client::Client::new(ClientConfig {
            cache_dir: o.cache_dir.clone(),
            binding: o.binding,
            ..ClientConfig::from_transport(transport)
        })?);
        clients.insert(key, Arc::clone(&client));
        Ok(client)
    }

    async fn describe(&self, url: String, skill: String) -> Result<Resolved, ClientError> {
        let client = self.client(&[&url])?;
        client.resolve(&url, &skill, &mut |_, _| {}).await
    }

    async fn call(
        &self,
        url: String,
        skill: String,
        args: Value,
        stream: Option<bool>,
    ) -> Result<SkillResult, ClientError> {
        let client = self.client(&[&url])?;
        let resolved = client.resolve(&url, &skill, &mut |_, _| {}).await?;
        client
            .invoke_cancellable(&resolved, &args, stream, |_| {})
            .await
    }
}

/// Reads the keyword options shared by both clients.
#[allow(clippy::too_many_arguments)]
fn options(
    py: Python<'_>,
    token: Option<String>,
    timeout: f64,
    headers: Option<&Bound<'_, PyAny>>,
    trust_jwks: Option<&Bound<'_, PyAny>>,
    binding: Option<&str>,
    cache_dir: Option<std::path::PathBuf>,
    allow_http: bool,
    a2a_version: &str,
    allow_credentials_to: Vec<String>,
) -> PyResult<Core> {
    let usage = |m: String| raise(py, "usage_error", &m, None);
    if !(timeout.is_finite() && (0.001..=3600.0).contains(&timeout)) {
        return Err(usage(format!(
            "timeout is in seconds, from 0.001 to 3600; got {timeout}"
        )));
    }
    let mut extra = Vec::new();
    if let Some(h) = headers {
        let specs: Vec<String> = if let Ok(d) = h.cast::<PyDict>() {
            d.iter()
                .map(|(k, v)| {
                    Ok(format!(
                        "{}: {}",
                        k.extract::<String>()?,
                        v.extract::<String>()?
                    ))
                })
                .collect::<PyResult<_>>()?
        } else {
            h.extract()?
        };
        for spec in specs {
            extra.push(ExtraHeader::parse(&spec).map_err(|e| usage(format!("headers: {e}")))?);
        }
    }
    let trusted_keys = match trust_jwks {
        None => None,
        Some(j) => {
            // A path (str or os.PathLike) to a JWK set file, its JSON text (bytes), or the
            // JWK set itself (dict).
            let bytes = if let Ok(b) = j.cast::<pyo3::types::PyBytes>() {
                b.as_bytes().to_vec()
            } else if let Ok(p) = j.extract::<std::path::PathBuf>() {
                std::fs::read(&p).map_err(|e| usage(format!("trust_jwks {}: {e}", p.display())))?
            } else {
                serde_json::to_vec(&to_value(j)?).map_err(|e| usage(e.to_string()))?
            };
            Some(
                skillgate_sign::TrustedKeys::from_json(&bytes)
                    .map_err(|e| usage(format!("trust_jwks: {e}")))?,
            )
        }
    };
    let binding = match binding {
        None => None,
        Some("jsonrpc") => Some(Binding::JsonRpc),
        Some("http-json") | Some("http_json") => Some(Binding::HttpJson),
        Some("grpc") => Some(Binding::Grpc),
        Some(other) => {
            return Err(usage(format!(
                "binding {other:?}: expected \"jsonrpc\", \"http-json\" or \"grpc\""
            )))
        }
    };
    let a2a_version: VersionChoice = a2a_version
        .parse()
        .map_err(|e: skillgate_transport::UnknownVersionChoice| usage(e.to_string()))?;
    let mut allowed = Vec::new();
    for spec in &allow_credentials_to {
        allowed.push(origin_of(spec).map_err(|e| usage(format!("allow_credentials_to: {e}")))?);
    }
    let token = token
        .or_else(|| std::env::var("SKILLGATE_TOKEN").ok())
        .filter(|t| !t.is_empty())
        .map(Secret::from);
    Ok(Core {
        options: Options {
            token,
            timeout: Duration::from_secs_f64(timeout),
            headers: extra,
            trusted_keys,
            binding,
            cache_dir,
            allow_http,
            a2a_version,
            allow_credentials_to: allowed,
        },
        clients: Mutex::new(HashMap::new()),
    })
}

/// The result of a validated call (step 11): the remote task and its validated output and
/// supporting records.
#[pyclass(module = "skillgate._skillgate", frozen, name = "CallResult")]
pub(crate) struct CallResult {
    r: SkillResult,
}

#[pymethods]
impl CallResult {
    /// The remote task id.
    #[getter]
    fn task_id(&self) -> &str {
        &self.r.task_id
    }
    /// The remote context id.
    #[getter]
    fn context_id(&self) -> &str {
        &self.r.context_id
    }
    /// The terminal state, e.g. `TASK_STATE_COMPLETED`.
    #[getter]
    fn state(&self) -> &'static str {
        self.r.state.as_str()
    }
    /// The skill called.
    #[getter]
    fn skill_id(&self) -> &str {
        &self.r.skill_id
    }
    /// The skill version the request named.
    #[getter]
    fn skill_version(&self) -> &str {
        &self.r.skill_version
    }
    /// The interface digest the request carried.
    #[getter]
    fn interface_digest(&self) -> String {
        self.r.interface_digest.to_string()
    }
    /// The URL the Agent Card came from.
    #[getter]
    fn card_url(&self) -> &str {
        &self.r.card_url
    }
    /// The endpoint the task ran on.
    #[getter]
    fn interface_url(&self) -> &str {
        &self.r.interface_url
    }
    /// The output, validated against the output schema (step 10).
    #[getter]
    fn output<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.r.output)
    }
    /// The supporting records, each validated against its kind's schema: dicts with
    /// `kind`, `artifact_id` and `data`.
    #[getter]
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for r in &self.r.records {
            let d = PyDict::new(py);
            d.set_item("kind", &r.kind)?;
            d.set_item("artifact_id", &r.artifact_id)?;
            d.set_item("data", to_py(py, &r.data)?)?;
            list.append(d)?;
        }
        Ok(list)
    }
    fn __repr__(&self) -> String {
        format!(
            "CallResult(skill_id={:?}, task_id={:?}, state={:?})",
            self.r.skill_id,
            self.r.task_id,
            self.r.state.as_str()
        )
    }
}

/// A skill's interface after steps 1 to 6: the advertised selection and the document, checked
/// three ways against the card.
#[pyclass(module = "skillgate._skillgate", frozen, name = "Description")]
pub(crate) struct Description {
    r: Resolved,
}

#[pymethods]
impl Description {
    /// The skill id.
    #[getter]
    fn skill_id(&self) -> &str {
        self.r.document.skill_id()
    }
    /// The advertised skill version.
    #[getter]
    fn skill_version(&self) -> &str {
        self.r.document.skill_version()
    }
    /// The interface digest (card, describe_skill and recomputed: all three equal).
    #[getter]
    fn interface_digest(&self) -> String {
        self.r.document.interface_digest().to_string()
    }
    /// The validated Skill Interface Document.
    #[getter]
    fn document(&self) -> InterfaceDocument {
        InterfaceDocument::of(self.r.document.clone())
    }
    /// The URL the Agent Card came from.
    #[getter]
    fn card_url(&self) -> String {
        self.r.target.card_url.to_string()
    }
    /// The endpoint selected.
    #[getter]
    fn interface_url(&self) -> String {
        self.r.target.interface.url.to_string()
    }
    /// `"describe_skill"` (asked now) or `"cache"` (bound to the current card).
    #[getter]
    fn source(&self) -> &'static str {
        match self.r.source {
            InterfaceSource::Described { .. } => "describe_skill",
            InterfaceSource::Cache(_) => "cache",
        }
    }
    fn __repr__(&self) -> String {
        format!(
            "Description(skill_id={:?}, skill_version={:?}, interface_digest={:?})",
            self.skill_id(),
            self.skill_version(),
            self.interface_digest()
        )
    }
}

/// A chain's failure as the exception of its code, with the chain's report as `report`.
fn chain_error(
    py: Python<'_>,
    failure: &skillgate_client::ChainFailure,
    report: &skillgate_client::ChainReport,
) -> PyErr {
    let out = serde_json::to_value(report.output(Some(failure))).unwrap_or(Value::Null);
    let err = match failure {
        skillgate_client::ChainFailure::Step { error, .. } => from_client_error(py, error),
        skillgate_client::ChainFailure::NotComposable { .. } => {
            raise(py, "interface_mismatch", &failure.to_string(), None)
        }
        skillgate_client::ChainFailure::InvalidPlan(_) => {
            raise(py, "usage_error", &failure.to_string(), None)
        }
    };
    if let Ok(v) = to_py(py, &out) {
        // The report rides along; a failure to attach it leaves the error itself intact.
        let _ = err.value(py).setattr("report", v);
    }
    err
}

/// Runs a plan; the report as a Python dict, or the failure as an exception.
async fn chain(core: Arc<Core>, plan: Value, stream: bool) -> PyResult<Py<PyAny>> {
    let plan = match Plan::from_value(plan) {
        Ok(p) => p,
        Err(e) => return Python::attach(|py| Err(raise(py, "usage_error", &e.to_string(), None))),
    };
    let urls: Vec<String> = plan.steps.iter().map(|s| s.agent.clone()).collect();
    let refs: Vec<&str> = urls.iter().map(String::as_str).collect();
    let client = core
        .client(&refs)
        .map_err(|e| Python::attach(|py| from_client_error(py, &e)))?;
    let mode = if stream { Mode::Stream } else { Mode::Sync };
    let ran = run_chain(&client, &plan, mode, &mut |_| {}).await;
    Python::attach(|py| match ran {
        Ok(report) => {
            let out = serde_json::to_value(report.output(None))
                .map_err(|e| raise(py, "protocol_error", &e.to_string(), None))?;
            Ok(to_py(py, &out)?.unbind())
        }
        Err((failure, report)) => Err(chain_error(py, &failure, &report)),
    })
}

fn client_err(e: ClientError) -> PyErr {
    Python::attach(|py| from_client_error(py, &e))
}

/// The native side of `skillgate.Client` and `skillgate.BlockingClient` (both thin Python
/// classes): `describe`, `call` and `chain` return awaitables; their `*_blocking` twins run the
/// same futures to completion on skillgate's runtime with the GIL released. Cancelling an
/// awaiting task abandons the call and, when the call streams (the default when the skill and
/// the card offer it), cancels the remote task too.
#[pyclass(module = "skillgate._skillgate", frozen, name = "NativeClient")]
pub(crate) struct Client {
    core: Arc<Core>,
}

/// Runs `f` to completion on the shared runtime with the GIL released.
fn block<T: Send>(py: Python<'_>, f: impl std::future::Future<Output = T> + Send) -> T {
    py.detach(|| pyo3_async_runtimes::tokio::get_runtime().block_on(f))
}

#[pymethods]
impl Client {
    /// NativeClient(*, token=None, timeout=30.0, headers=None, trust_jwks=None, binding=None,
    ///  cache_dir=None, allow_http=False, a2a_version="auto", allow_credentials_to=())
    ///
    /// `token`: bearer token (default `$SKILLGATE_TOKEN`), sent only to the origin of the URL
    /// a call names (and `allow_credentials_to`). `timeout`: seconds per request. `headers`:
    /// extra headers (dict or `"Name: value"` strings; never printed). `trust_jwks`: a JWK
    /// set (path, dict or JSON bytes) the card must be signed by. `binding`: `"jsonrpc"`,
    /// `"http-json"` or `"grpc"`. `cache_dir`: an on-disk interface cache. `a2a_version`:
    /// `"auto"`, `"1.0"` or `"0.3"`.
    #[new]
    #[pyo3(signature = (*, token = None, timeout = 30.0, headers = None, trust_jwks = None,
        binding = None, cache_dir = None, allow_http = false, a2a_version = "auto",
        allow_credentials_to = Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        token: Option<String>,
        timeout: f64,
        headers: Option<&Bound<'_, PyAny>>,
        trust_jwks: Option<&Bound<'_, PyAny>>,
        binding: Option<&str>,
        cache_dir: Option<std::path::PathBuf>,
        allow_http: bool,
        a2a_version: &str,
        allow_credentials_to: Vec<String>,
    ) -> PyResult<Self> {
        let core = options(
            py,
            token,
            timeout,
            headers,
            trust_jwks,
            binding,
            cache_dir,
            allow_http,
            a2a_version,
            allow_credentials_to,
        )?;
        Ok(Self {
            core: Arc::new(core),
        })
    }

    /// describe(url, skill_id) -> Description  (awaitable)
    /// --
    ///
    /// Steps 1 to 6: the card, the skill's advertisement, describe_skill (or the cache), the
    /// digest checked three ways, the document validated.
    fn describe<'py>(
        &self,
        py: Python<'py>,
        url: String,
        skill_id: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let core = Arc::clone(&self.core);
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let r = core.describe(url, skill_id).await.map_err(client_err)?;
            Ok(Description { r })
        })
    }

    /// call(url, skill_id, arguments, stream=None) -> CallResult  (awaitable)
    /// --
    ///
    /// All eleven steps. The input is validated before anything is sent (`InputInvalid`,
    /// `where="local"`, step 7); the output and records after (`OutputInvalid`, step 10).
    /// `stream`: `True` streams, `False` blocks, `None` streams when the skill and the card
    /// offer it.
    #[pyo3(signature = (url, skill_id, arguments, stream = None))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        url: String,
        skill_id: String,
        arguments: &Bound<'py, PyAny>,
        stream: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args = to_value(arguments)?;
        let core = Arc::clone(&self.core);
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let r = core
                .call(url, skill_id, args, stream)
                .await
                .map_err(client_err)?;
            Ok(CallResult { r })
        })
    }

    /// chain(plan, stream=False) -> dict  (awaitable)
    /// --
    ///
    /// Runs a plan (the `skillgate chain` format: `{"steps": [{"name", "agent", "skill",
    /// "arguments" | "from"}]}`): every link checked for direct composition before anything
    /// is delegated. Returns the report (`ok`, `steps`, `correlations`); a failure raises the
    /// exception of its code with the report as `report`.
    #[pyo3(signature = (plan, stream = false))]
    fn chain<'py>(
        &self,
        py: Python<'py>,
        plan: &Bound<'py, PyAny>,
        stream: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let plan = to_value(plan)?;
        let core = Arc::clone(&self.core);
        pyo3_async_runtimes::tokio::future_into_py(py, chain(core, plan, stream))
    }

    /// describe_blocking(url, skill_id) -> Description: `describe`, blocking.
    fn describe_blocking(
        &self,
        py: Python<'_>,
        url: String,
        skill_id: String,
    ) -> PyResult<Description> {
        let r = block(py, self.core.describe(url, skill_id));
        r.map(|r| Description { r })
            .map_err(|e| from_client_error(py, &e))
    }

    /// call_blocking(url, skill_id, arguments, stream=None) -> CallResult: `call`, blocking.
    #[pyo3(signature = (url, skill_id, arguments, stream = None))]
    fn call_blocking(
        &self,
        py: Python<'_>,
        url: String,
        skill_id: String,
        arguments: &Bound<'_, PyAny>,
        stream: Option<bool>,
    ) -> PyResult<CallResult> {
        let args = to_value(arguments)?;
        let r = block(py, self.core.call(url, skill_id, args, stream));
        r.map(|r| CallResult { r })
            .map_err(|e| from_client_error(py, &e))
    }

    /// chain_blocking(plan, stream=False) -> dict: `chain`, blocking.
    #[pyo3(signature = (plan, stream = false))]
    fn chain_blocking(
        &self,
        py: Python<'_>,
        plan: &Bound<'_, PyAny>,
        stream: bool,
    ) -> PyResult<Py<PyAny>> {
        let plan = to_value(plan)?;
        let core = Arc::clone(&self.core);
        block(py, chain(core, plan, stream))
    }
}
