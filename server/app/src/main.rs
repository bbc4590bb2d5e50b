//! The `keystorm` binary: parse the command line, hand over to the library.

use mimalloc::MiMalloc;

// The allocator matters for a load generator: the S3 stack allocates per request.
#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

fn main() -> std::process::ExitCode {
    keystorm::main_with_args(std::env::args_os())
}
