//! Sockets held open to an HTTPS controller and left silent lock no one out: while 600
//! of them are held (more than the controller lets be under way per peer and in all,
//! and all from 127.0.0.1, the address of the clients that must still get in), a new
//! HTTPS request gets its answer and a new agent registers.

mod fleet_support;
mod process_support;
mod tls_support;

use std::net::TcpStream;
use std::process::Stdio;

use fleet_support::{start_agent_with, start_serving};
use process_support::wait_for;
use tls_support::{TestCa, https_get_json, tls_flags};

/// Silent connections held open.
const SILENT: usize = 600;
/// Open files this process and the controller it starts may need: the silent
/// connections on each side, and room for the rest.
const OPEN_FILES: u64 = SILENT as u64 + 1024;

/// Raises this process's soft limit of open files to [`OPEN_FILES`] (the controller
/// started after inherits it), as the hard limit allows; the limit then in force.
fn allow_open_files() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain FFI calls with a valid pointer to a struct of this process's.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        if limit.rlim_cur < OPEN_FILES {
            limit.rlim_cur = OPEN_FILES.min(limit.rlim_max);
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
        }
    }
    limit.rlim_cur
}

#[test]
fn silent_connections_held_open_lock_out_no_new_request_or_agent() {
    let open_files = allow_open_files();
    assert!(
        open_files >= OPEN_FILES,
        "the test needs {OPEN_FILES} open files, the hard limit allows {open_files}"
    );
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path(), "idle");
    let pair = ca.issue(dir.path(), "controller");
    let results = dir.path().join("controller").display().to_string();
    let mut args = tls_flags(&pair);
    args.extend(["--results".to_string(), results]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let controller = start_serving(&args);
    let addr = controller.url.strip_prefix("https://").unwrap();

    // Connected and saying nothing, kept open to the end of the test.
    let silent: Vec<TcpStream> = (0..SILENT)
        .map(|_| TcpStream::connect(addr).unwrap())
        .collect();

    // One attempt: a connection refused now would only get in once the silent ones
    // time out.
    let status = https_get_json(&controller.url, &ca.file, "/api/status");
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"), "{status}");

    let ca_file = ca.file.to_str().unwrap();
    let mut agent = start_agent_with(
        &controller.url,
        "past-the-silent",
        &dir.path().join("agent"),
        &["--ca-file", ca_file],
        Stdio::piped(),
    );
    wait_for("the agent to register", || {
        if let Some(status) = agent.0.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut agent.0.stderr.take().unwrap(), &mut stderr)
                .unwrap();
            panic!("the agent ended ({status}) before registering: {stderr}");
        }
        let view = https_get_json(&controller.url, &ca.file, "/api/agents");
        view["agents"]
            .as_array()?
            .iter()
            .any(|a| a["name"] == "past-the-silent")
            .then_some(())
    });
    drop(silent);
}
