//! Generates the A2A protobuf messages, the tonic service and client, and their ProtoJSON
//! serde impls from the vendored `proto/a2a.proto`, with protox (no protoc install needed).

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(["a2a.proto"], ["proto"])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    // The well-known types (Struct, Value, Timestamp, Empty) come from pbjson-types, whose
    // serde impls are ProtoJSON: a Struct is a JSON object, a Timestamp an RFC 3339 string.
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .compile_fds(fds.clone())?;
    pbjson_build::Builder::new()
        .register_descriptors(&fds.encode_to_vec())?
        .out_dir(&out)
        .extern_path(".google.protobuf", "::pbjson_types")
        // ProtoJSON parsers ignore unknown fields (A2A 1.0 section 5.6.2): a newer peer's
        // field must not fail a conversion.
        .ignore_unknown_fields()
        .build(&[".lf.a2a.v1"])?;
    Ok(())
}
