//! Generates the A2A protobuf messages, the tonic service and client, and their ProtoJSON
//! serde impls from the vendored `proto/a2a.proto` (A2A 1.0, `lf.a2a.v1`) and
//! `proto/a2a_v0_3.proto` (A2A 0.3, `a2a.v1`), with protox (no protoc install needed).

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(["a2a.proto"], ["proto"])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    // The well-known types (Struct, Value, Timestamp, Empty) come from pbjson-types, whose
    // serde impls are ProtoJSON: a Struct is a JSON object, a Timestamp an RFC 3339 string.
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(false)
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .compile_fds(fds.clone())?;
    // The server alone, again, with the messages taken from the first run (extern paths) and
    // its own codec: a request that is not valid protobuf is the client's fault, answered
    // INVALID_ARGUMENT, where prost's codec says INTERNAL (crate::codec). The client keeps
    // prost's codec: a reply it cannot decode is not the client's argument.
    let server_out = out.join("server");
    std::fs::create_dir_all(&server_out)?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        .out_dir(&server_out)
        .codec_path("crate::codec::RequestCodec")
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .extern_path(".lf.a2a.v1", "crate::pb")
        .compile_fds(fds.clone())?;
    pbjson_build::Builder::new()
        .register_descriptors(&fds.encode_to_vec())?
        .out_dir(&out)
        .extern_path(".google.protobuf", "::pbjson_types")
        // ProtoJSON parsers ignore unknown fields (A2A 1.0 section 5.6.2): a newer peer's
        // field must not fail a conversion.
        .ignore_unknown_fields()
        .build(&[".lf.a2a.v1"])?;
    v03(&out)
}

/// The 0.3 package, in its own directory: its file names would collide with nothing of
/// 1.0's (`a2a.v1.rs`), but keeping it apart keeps the two generations independent. The
/// same two runs as for 1.0: messages and client with prost's codec, the server with ours.
fn v03(out: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let fds = protox::compile(["a2a_v0_3.proto"], ["proto"])?;
    let dir = out.join("v03");
    let server_dir = dir.join("server");
    std::fs::create_dir_all(&server_dir)?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(false)
        .out_dir(&dir)
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .compile_fds(fds.clone())?;
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        .out_dir(&server_dir)
        .codec_path("crate::codec::RequestCodec")
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .extern_path(".a2a.v1", "crate::pb03")
        .compile_fds(fds.clone())?;
    pbjson_build::Builder::new()
        .register_descriptors(&fds.encode_to_vec())?
        .out_dir(&dir)
        .extern_path(".google.protobuf", "::pbjson_types")
        .ignore_unknown_fields()
        .build(&[".a2a.v1"])?;
    Ok(())
}
