//! Compiles `proto/tcfuzz.proto` into `OUT_DIR` in pure Rust: protox parses it (no `protoc` on
//! the machine), tonic-prost-build writes the messages and the client and server stubs.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/tcfuzz.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    tonic_prost_build::configure().build_client(true).build_server(true).compile_fds(descriptors)?;
    Ok(())
}
