//! The failures of running an MCP server: the ones before any tool is called. A failing call
//! is not one of them: it is a tool result with `isError: true` (see `result`).

/// Why the MCP server could not start or stopped early.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The MCP session could not be set up (e.g. the host closed stdin before
    /// `initialize`), or ended with a transport error.
    #[error("MCP session: {0}")]
    Session(String),
    /// The Streamable HTTP listener could not be bound or served.
    #[error("MCP listener on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: String,
        /// The socket error.
        source: std::io::Error,
    },
    /// `--listen` named an address that is not on loopback: this server has no
    /// authentication of its own, so it answers only to this machine.
    #[error("{0} is not a loopback address: the MCP listener serves this machine only (127.0.0.1, [::1])")]
    NotLoopback(std::net::SocketAddr),
}
