//! Rebuilds the API crate (and so the binary) when the web UI is (re)built, so the
//! embedded UI is never stale (and a build made before `web/dist` existed picks it up
//! once it does).

fn main() {
    println!("cargo:rerun-if-changed=../../web/dist");
    println!("cargo:rerun-if-changed=../../web/dist-report");
}
