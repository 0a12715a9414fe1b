//! What skillgate takes from the machine it runs on, each rule once.
//!
//! - [`dirs`]: the per-user directories, by the XDG base directory rules (the task store's
//!   default file, the client's interface cache).
//! - [`http`] (feature `http`): the base every outgoing HTTP client is built on. The workspace
//!   builds reqwest without a default crypto provider, so whoever builds a client must install
//!   one first; and no client of ours lets reqwest follow redirects on its own, because a
//!   redirect must be judged by the caller (credentials per origin, the push guard).

pub mod dirs;
#[cfg(feature = "http")]
pub mod http;
