//! The service's protobuf codec: prost's, except that a request whose bytes do not decode
//! (malformed, or nested past prost's recursion limit) is answered `INVALID_ARGUMENT`, as the
//! README promises; prost's codec answers `INTERNAL`, which would blame the server for the
//! client's bytes. Only the generated service uses it (build.rs); the client keeps prost's.

use std::marker::PhantomData;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::ProstEncoder;

/// Encodes answers as prost does; decodes requests with [`RequestDecoder`].
#[derive(Debug, Clone, Copy)]
pub struct RequestCodec<T, U> {
    _pd: PhantomData<(T, U)>,
}

impl<T, U> Default for RequestCodec<T, U> {
    fn default() -> Self {
        Self { _pd: PhantomData }
    }
}

impl<T, U> Codec for RequestCodec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = RequestDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::default()
    }

    fn decoder(&mut self) -> Self::Decoder {
        RequestDecoder { _pd: PhantomData }
    }
}

/// Decodes a request message; bytes that are not one are the client's `INVALID_ARGUMENT`.
#[derive(Debug, Clone, Copy)]
pub struct RequestDecoder<U> {
    _pd: PhantomData<U>,
}

impl<U: prost::Message + Default> Decoder for RequestDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf).map(Some).map_err(|e| invalid(&e))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// `INVALID_ARGUMENT` naming the cause only: prost's message also lists every enclosing
/// field, some 30 bytes per nesting level of a too-deep message.
fn invalid(e: &prost::DecodeError) -> Status {
    let full = e.to_string();
    let cause = full.rsplit(": ").next().unwrap_or("undecodable");
    Status::invalid_argument(format!(
        "the request is not a valid protobuf message: {cause}"
    ))
}
