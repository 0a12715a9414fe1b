//! Server-sent event responses over a service [`EventStream`]. Each holds one unit of the
//! open-streams gauge until its body is dropped (the stream ended or the client went away).

use super::AppState;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use skillgate_a2a::{JsonRpcId, JsonRpcResponse, StreamResponse};
use skillgate_runtime::service::EventStream;
use std::convert::Infallible;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;

/// The service's events until the stream ends or the server shuts down (`end`).
fn until(
    stream: EventStream,
    end: CancellationToken,
) -> impl tokio_stream::Stream<Item = StreamResponse> {
    futures_util::StreamExt::take_until(ReceiverStream::new(stream), end.cancelled_owned())
}

fn event(data: String) -> Result<Event, Infallible> {
    Ok(Event::default().data(data))
}

/// REST: each event is `data: <StreamResponse>`.
pub(crate) fn rest(stream: EventStream, st: &AppState) -> Response {
    let open = st.metrics.stream();
    let s = until(stream, st.streams_end.clone()).map(move |ev: StreamResponse| {
        let _open = &open;
        event(serde_json::to_string(&ev).unwrap_or_default())
    });
    Sse::new(s).keep_alive(KeepAlive::default()).into_response()
}

/// REST with each event written by `write` (the 0.3 dialect writes ProtoJSON of its own
/// proto); the gauge and the end at shutdown are the same as [`rest`]'s.
pub(crate) fn rest_mapped<F>(stream: EventStream, st: &AppState, write: F) -> Response
where
    F: Fn(StreamResponse) -> String + Send + Sync + 'static,
{
    let open = st.metrics.stream();
    let s = until(stream, st.streams_end.clone()).map(move |ev: StreamResponse| {
        let _open = &open;
        event(write(ev))
    });
    Sse::new(s).keep_alive(KeepAlive::default()).into_response()
}

/// JSON-RPC: each event is `data: {"jsonrpc":"2.0","id":..,"result":<StreamResponse>}`.
pub(crate) fn jsonrpc(id: JsonRpcId, stream: EventStream, st: &AppState) -> Response {
    jsonrpc_mapped(id, stream, st, |id, ev| {
        let result = serde_json::to_value(&ev).unwrap_or_default();
        serde_json::to_string(&JsonRpcResponse::result(id.clone(), result)).unwrap_or_default()
    })
}

/// JSON-RPC with each event written by `write` (the 0.3 dialect writes its own shapes); the
/// open-streams gauge and the end at shutdown stay the same for every dialect.
pub(crate) fn jsonrpc_mapped<F>(
    id: JsonRpcId,
    stream: EventStream,
    st: &AppState,
    write: F,
) -> Response
where
    F: Fn(&JsonRpcId, StreamResponse) -> String + Send + Sync + 'static,
{
    let open = st.metrics.stream();
    let s = until(stream, st.streams_end.clone()).map(move |ev: StreamResponse| {
        let _open = &open;
        event(write(&id, ev))
    });
    Sse::new(s).keep_alive(KeepAlive::default()).into_response()
}

/// One event holding `data` and the end of the stream: how a 0.3 `tasks/resubscribe` reports
/// an error found before its first event (a2a-sdk 0.3 does so, and its clients expect it).
pub(crate) fn single(data: String) -> Response {
    Sse::new(tokio_stream::once(event(data))).into_response()
}
