//! The gRPC side of a [`Launch`] (feature `grpc`): its listener, its limits and the
//! `host:port` the card advertises for it.

use super::{require_public_url, Launch, LaunchError, Listener};
use skillgate_grpc::GrpcConfig;
use skillgate_runtime::AgentSwap;
use tokio::net::TcpListener;
use tokio_util::sync::WaitForCancellationFutureOwned;

/// The bound gRPC listener and how it serves.
pub(super) struct GrpcListener {
    listener: TcpListener,
    config: GrpcConfig,
}

impl Launch {
    /// Also serves the gRPC binding on `listener`, over the same service (one gate, one task
    /// store, the same reloads), with the HTTP side's limits ([`GrpcConfig::for_server`]);
    /// the card lists it after the HTTP interfaces.
    pub fn with_grpc(self, listener: TcpListener) -> Result<Self, LaunchError> {
        let limits = GrpcConfig::for_server(&self.config);
        self.with_grpc_config(listener, limits)
    }

    /// [`Launch::with_grpc`] with limits of the caller's own. The card names `listener`'s
    /// address, or for one on every interface the public URL's host with its port (refused
    /// without a public URL).
    pub fn with_grpc_config(
        mut self,
        listener: TcpListener,
        config: GrpcConfig,
    ) -> Result<Self, LaunchError> {
        let addr = listener.local_addr()?;
        let url = match require_public_url(Listener::Grpc, addr, self.config.public_url.as_deref())?
        {
            None => addr.to_string(),
            // Checked by `Launch::new`: absolute, with a host.
            Some(public) => {
                let host = url::Url::parse(public)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
                    .ok_or(LaunchError::EveryInterface {
                        listener: Listener::Grpc,
                        addr,
                    })?;
                format!("{host}:{}", addr.port())
            }
        };
        self.config.grpc_url = Some(url);
        self.grpc = Some(GrpcListener { listener, config });
        Ok(self)
    }
}

/// Serves the gRPC binding of `swap` until `stop` resolves; nothing without a listener.
pub(super) async fn run(
    grpc: Option<GrpcListener>,
    swap: AgentSwap,
    stop: WaitForCancellationFutureOwned,
) -> Result<(), LaunchError> {
    match grpc {
        None => Ok(()),
        Some(g) => Ok(skillgate_grpc::serve(swap, g.listener, g.config, stop).await?),
    }
}
