//! `keystorm sim`: the embedded S3 target as a process of its own, until Ctrl-C, with
//! its RGW-like bucket index, its latency and fault injection and its memory budget
//! set from flags — on one port, or on several serving the one store (`--ports`), like
//! gateways in front of one cluster, each with a latency and request faults of its own
//! added (`--port-latency`, `--fault PORT:KIND=RATE`). The flags become the
//! `target.embedded` section a workload would write ([`super::sim_section`]), checked
//! by the workload's validator and translated for the simulator by the same function,
//! so a setting has one definition, one limit and one message.

use crate::CliError;
use crate::cli::{SimArgs, SimStorage};
use keystorm_console::exit;

use super::sim_section::{port_section, target_section};

/// The target's configuration from the flags, through the same validation and
/// translation a workload's embedded target takes.
fn config(args: &SimArgs) -> Result<keystorm_sim::SimConfig, CliError> {
    Ok(keystorm_sim::SimConfig {
        storage: match args.storage {
            SimStorage::Memory => keystorm_sim::Storage::Memory,
            SimStorage::SizeOnly => keystorm_sim::Storage::SizeOnly,
        },
        credentials: args.access_key.clone().zip(args.secret_key.clone()),
        no_multi_delete: args.no_multi_delete,
        ..keystorm_embedded::sim_config(&target_section(args).plan()?)
    })
}

/// One port to listen on, with what it adds to the target's own injection.
#[derive(Debug)]
struct PortSetting {
    port: u16,
    latency: keystorm_sim::LatencyConfig,
    faults: Option<keystorm_sim::FaultConfig>,
}

/// The ports to listen on, in order (--ports, or else --port), each with the latency
/// --port-latency adds to it and its own --fault PORT:KIND=RATE faults; a port named
/// twice, a --port-latency or --fault for a port not listened on, or an index fault
/// given to a port, is bad input.
fn ports(args: &SimArgs) -> Result<Vec<PortSetting>, CliError> {
    let (flag, ports) = match args.ports.as_slice() {
        [] => ("--port", vec![args.port]),
        ports => ("--ports", ports.to_vec()),
    };
    for (i, port) in ports.iter().enumerate() {
        if *port != 0 && ports[..i].contains(port) {
            return Err(CliError::bad_input(format!(
                "port {port} appears twice in --ports"
            )));
        }
    }
    let named = args
        .port_latency
        .iter()
        .map(|(p, _, _)| ("--port-latency", *p))
        .chain(
            args.faults
                .iter()
                .filter_map(|(p, _, _)| p.map(|p| ("--fault", p))),
        );
    for (given, port) in named {
        if !ports.contains(&port) {
            let listed: Vec<String> = ports.iter().map(u16::to_string).collect();
            return Err(CliError::bad_input(format!(
                "{given} names port {port}, which is not one of {flag} {}",
                listed.join(",")
            )));
        }
    }
    ports
        .iter()
        .map(|&port| {
            let own = port_section(args, port).plan()?;
            let faulty = args.faults.iter().any(|(p, _, _)| *p == Some(port));
            let faults = match faulty {
                true => Some(port_faults(&own.faults, port)?),
                false => None,
            };
            Ok(PortSetting {
                port,
                latency: keystorm_embedded::sim_latency(&own.latency),
                faults,
            })
        })
        .collect()
}

/// The request faults of --fault PORT:KIND=RATE flags, as the simulator takes them.
fn port_faults(
    faults: &keystorm_workload::plan::FaultsPlan,
    port: u16,
) -> Result<keystorm_sim::FaultConfig, CliError> {
    let config = keystorm_embedded::sim_faults(faults);
    keystorm_sim::check_port_faults(&config).map_err(|e| {
        CliError::bad_input(match e {
            keystorm_sim::PortFaultsError::StoreFault(name) => format!(
                "--fault {port}:{}: it fails the bucket index, which is the store's whichever \
                 port a request came through; give it without a port",
                name.replace('_', "-")
            ),
            e => format!("--fault {port}: {e}"),
        })
    })?;
    Ok(config)
}

pub async fn sim(args: &SimArgs) -> Result<u8, CliError> {
    let config = config(args)?;
    let ports = ports(args)?;
    let stop = super::signals::shutdown_signal();
    let addr_of = |port: u16| std::net::SocketAddr::new(args.bind, port);
    let cannot = |addr, e| CliError::failed(format!("cannot listen on {addr}: {e}"));
    let Some((first, others)) = ports.split_first() else {
        return Err(CliError::bad_input("no port to listen on"));
    };
    let handle = keystorm_sim::start(addr_of(first.port), config)
        .await
        .map_err(|e| cannot(addr_of(first.port), e))?;
    let set_faults = |port: &keystorm_sim::PortHandle, setting: &PortSetting| {
        port.set_faults(setting.faults.clone())
            .map_err(|e| CliError::bad_input(format!("--fault {}: {e}", setting.port)))
    };
    handle.main_port().set_latency(first.latency.clone());
    set_faults(handle.main_port(), first)?;
    for setting in others {
        let port = handle
            .listen_also(addr_of(setting.port), setting.latency.clone())
            .await
            .map_err(|e| cannot(addr_of(setting.port), e))?;
        set_faults(&port, setting)?;
    }
    let (_, budget) = handle.memory();
    let origin = match args.max_memory {
        Some(_) => "--max-memory",
        None => "half of this machine's memory; change it with --max-memory",
    };
    eprintln!(
        "keystorm sim: memory budget {} ({origin})",
        keystorm_sim::human_bytes(budget)
    );
    // One line per port, once all of them listen, that scripts can wait for and parse.
    for port in handle.ports() {
        stdoutln!("keystorm sim listening on {}", port.endpoint());
    }
    stop.await;
    handle.shutdown().await;
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    /// Why a test's command line made no configuration: clap refused it, or `sim` did.
    #[derive(Debug, thiserror::Error)]
    enum Refused {
        #[error(transparent)]
        Clap(#[from] clap::Error),
        #[error(transparent)]
        Sim(#[from] CliError),
    }

    /// Every simulator setting, given once as `keystorm sim` flags and once as a
    /// workload's `target.embedded`, each set away from its default.
    const EVERY_SETTING_FLAGS: &[&str] = &[
        "--index-shards=7",
        "--dynamic-resharding",
        "--max-objs-per-shard=50",
        "--reshard-check-interval=2s",
        "--reshard-time-per-object=3us",
        "--reshard-retry-step=4s",
        "--list-time-per-shard=5us",
        "--latency=put=2ms",
        "--latency=get=1ms..3ms",
        "--latency=head=lognormal:1ms,10ms",
        "--latency=list=exp:2ms",
        "--latency=delete=4ms",
        "--fault=slow-down=0.01",
        "--fault=internal-error=0.02",
        "--fault=reset=0.03",
        "--fault=stall=0.04",
        "--fault=key-error=0.05",
        "--fault=corrupt=0.06",
        "--fault=lose-on-reshard=0.07",
        "--fault=list-twice=0.08",
        "--stall-time=6s",
        "--fault-seed=9",
        "--fault-ops=get,list,delete",
        "--max-memory=1GiB",
        "--max-inflight=8",
    ];
    const EVERY_SETTING_WORKLOAD: &str = "name: r
target:
  endpoint: embedded
  embedded:
    index: { shards: 7, dynamic: true, max_objs_per_shard: 50, check_interval: 2s, reshard_time_per_object: 3us, retry_step: 4s, list_time_per_shard: 5us }
    latency: { put: 2ms, get: 1ms..3ms, head: \"lognormal:1ms,10ms\", list: exp:2ms, delete: 4ms }
    faults: { slow_down: 0.01, internal_error: 0.02, reset: 0.03, stall: 0.04, key_error: 0.05, corrupt: 0.06, lose_on_reshard: 0.07, list_twice: 0.08, stall_time: 6s, seed: 9, ops: [get, list, delete] }
    max_memory: 1GiB
    max_inflight: 8
buckets: { name: bkt }
before:
  - { op: put, operations: 10 }
";

    #[test]
    fn every_flag_and_its_workload_field_give_the_simulator_the_same_setting() {
        let flags = parse(EVERY_SETTING_FLAGS).unwrap();
        let (plan, _) =
            keystorm_workload::spec::parse_workload(EVERY_SETTING_WORKLOAD, "w.yaml").unwrap();
        let workload = keystorm_embedded::sim_config(&plan.target.embedded);
        let shared = |c: &keystorm_sim::SimConfig| {
            format!(
                "{:?} {:?} {:?} {:?} {:?}",
                c.index, c.latency, c.faults, c.max_memory, c.max_inflight
            )
        };
        assert_eq!(shared(&flags), shared(&workload));

        // Each setting is away from its default, so a setting one side drops is seen.
        // The patterns name every field: a new setting does not compile here until
        // it is given on both sides above.
        let d = keystorm_sim::SimConfig::default();
        let keystorm_sim::IndexConfig {
            default_shards,
            dynamic,
            max_objs_per_shard,
            check_interval,
            reshard_time_per_object,
            retry_step,
            list_time_per_shard,
        } = flags.index;
        assert_ne!(default_shards, d.index.default_shards);
        assert_ne!(dynamic, d.index.dynamic);
        assert_ne!(max_objs_per_shard, d.index.max_objs_per_shard);
        assert_ne!(check_interval, d.index.check_interval);
        assert_ne!(reshard_time_per_object, d.index.reshard_time_per_object);
        assert_ne!(retry_step, d.index.retry_step);
        assert_ne!(list_time_per_shard, d.index.list_time_per_shard);
        let keystorm_sim::LatencyConfig {
            put,
            get,
            head,
            list,
            delete,
        } = flags.latency;
        for (op, delay) in [("put", put), ("get", get), ("head", head), ("list", list)] {
            assert!(delay.is_some(), "{op}");
        }
        assert!(delete.is_some());
        let keystorm_sim::FaultConfig {
            slow_down,
            internal_error,
            reset,
            stall,
            stall_time,
            key_error,
            corrupt,
            lose_on_reshard,
            list_twice,
            seed,
            ops,
        } = flags.faults;
        let rates = [
            slow_down,
            internal_error,
            reset,
            stall,
            key_error,
            corrupt,
            lose_on_reshard,
            list_twice,
        ];
        assert!(rates.iter().all(|r| *r > 0.0), "{rates:?}");
        assert_ne!(stall_time, std::time::Duration::from_secs(5));
        assert_ne!(seed, d.faults.seed);
        assert_eq!(ops.len(), 3);
        assert_ne!(flags.max_memory, d.max_memory);
        assert_ne!(flags.max_inflight, d.max_inflight);
    }

    fn parse(args: &[&str]) -> Result<keystorm_sim::SimConfig, Refused> {
        let cli = Cli::try_parse_from(["keystorm", "sim"].iter().chain(args))?;
        let Command::Sim(args) = cli.command else {
            unreachable!("parsed as sim")
        };
        Ok(config(&args)?)
    }

    fn parse_ports(args: &[&str]) -> Result<Vec<PortSetting>, Refused> {
        let cli = Cli::try_parse_from(["keystorm", "sim"].iter().chain(args))?;
        let Command::Sim(args) = cli.command else {
            unreachable!("parsed as sim")
        };
        Ok(ports(&args).inspect_err(|e| {
            assert_eq!(e.code, keystorm_console::exit::BAD_INPUT, "{}", e.message);
        })?)
    }

    #[test]
    fn every_port_gets_its_own_latency() {
        let ms = Duration::from_millis;
        let p = parse_ports(&[
            "--ports",
            "9000,9001,0,9002",
            "--port-latency",
            "9001:get=200ms",
            "--port-latency",
            "9001:put=1ms..3ms",
            "--port-latency",
            "9002:list=exp:2ms",
            "--latency",
            "get=5ms",
        ])
        .unwrap();
        let ports: Vec<u16> = p.iter().map(|s| s.port).collect();
        assert_eq!(ports, [9000, 9001, 0, 9002]);
        assert!(p[0].latency.get.is_none() && p[2].latency.get.is_none());
        assert_eq!(
            p[1].latency.get,
            Some(keystorm_types::Delay::Fixed(ms(200)))
        );
        assert_eq!(
            p[1].latency.put,
            Some(keystorm_types::Delay::Uniform {
                low: ms(1),
                high: ms(3)
            })
        );
        assert_eq!(
            p[3].latency.list,
            Some(keystorm_types::Delay::Exponential { mean: ms(2) })
        );
        // The target's own latency stays the target's.
        let c = parse(&["--ports", "9000,9001", "--latency", "get=5ms"]).unwrap();
        assert_eq!(c.latency.get, Some(keystorm_types::Delay::Fixed(ms(5))));

        let one = parse_ports(&["--port", "9005", "--port-latency", "9005:head=1ms"]).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(
            one[0].latency.head,
            Some(keystorm_types::Delay::Fixed(ms(1)))
        );
        assert_eq!(parse_ports(&[]).unwrap()[0].port, 9000);
    }

    #[test]
    fn a_fault_with_a_port_is_that_ports_alone() {
        let args = [
            "--ports",
            "9000,9001",
            "--fault",
            "9001:reset=0.5",
            "--fault",
            "9001:slow-down=10%",
            "--fault",
            "stall=0.1",
            "--fault-seed",
            "7",
            "--fault-ops",
            "get",
        ];
        let p = parse_ports(&args).unwrap();
        assert!(p[0].faults.is_none());
        let own = p[1].faults.as_ref().unwrap();
        assert_eq!((own.reset, own.slow_down, own.stall), (0.5, 0.1, 0.0));
        assert_eq!(own.seed, 7);
        assert_eq!(own.ops, [keystorm_sim::ObjectOp::Get]);
        // The target's own faults leave the port's out.
        let c = parse(&args).unwrap();
        assert_eq!((c.faults.reset, c.faults.stall), (0.0, 0.1));
    }

    #[test]
    fn bad_ports_are_clear_errors() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--ports", "9000,9001", "--port-latency", "9003:get=1ms"],
                "--port-latency names port 9003, which is not one of --ports 9000,9001",
            ),
            (
                &["--port-latency", "9001:get=1ms"],
                "port 9001, which is not one of --port 9000",
            ),
            (&["--ports", "9000,9001,9000"], "port 9000 appears twice"),
            (
                &["--port", "9000", "--ports", "9001"],
                "cannot be used with",
            ),
            (&["--ports", "9000,x"], "invalid value"),
            (&["--port-latency", "get=1ms"], "PORT:OP=DIST"),
            (&["--port-latency", "0:get=1ms"], "between 1 and 65535"),
            (&["--port-latency", "70000:get=1ms"], "between 1 and 65535"),
            (
                &["--port-latency", "9000:copy=1ms"],
                "--port-latency: unknown operation \"copy\" in `latency`; use put, get, head, list or delete",
            ),
            (&["--port-latency", "9000:get=3ms..1ms"], "upper bound"),
            (&["--port-latency", "9000:get"], "OP=DIST"),
            (
                &["--ports", "9000,9001", "--fault", "9002:reset=1"],
                "--fault names port 9002, which is not one of --ports 9000,9001",
            ),
            (
                &["--fault", "9000:list-twice=0.1"],
                "--fault 9000:list-twice: it fails the bucket index",
            ),
            (
                &["--fault", "9000:reset=0.6", "--fault", "9000:stall=0.6"],
                "--fault: the fault rates add up to 1.2; together they must not exceed 1",
            ),
            (&["--fault", "x:reset=1"], "\"x\" is not a port number"),
        ];
        for (args, expected) in cases {
            let e = parse_ports(args).unwrap_err().to_string();
            assert!(e.contains(expected), "{args:?}: {e}");
        }
    }

    #[test]
    fn defaults_are_the_targets() {
        let c = parse(&[]).unwrap();
        let d = keystorm_sim::IndexConfig::default();
        assert_eq!(c.index.default_shards, d.default_shards);
        assert!(!c.index.dynamic);
        assert_eq!(c.index.retry_step, d.retry_step);
        assert!(c.latency.put.is_none());
        assert_eq!(c.faults.stall_time, Duration::from_secs(5));
        assert_eq!(c.faults.slow_down, 0.0);
        assert!(c.faults.ops.is_empty() && !c.no_multi_delete);
        assert_eq!(c.max_memory, None, "the target works out its default");
    }

    #[test]
    fn every_flag_lands_in_the_config() {
        let c = parse(&[
            "--index-shards",
            "7",
            "--dynamic-resharding",
            "--max-objs-per-shard",
            "1000",
            "--reshard-check-interval",
            "250ms",
            "--reshard-time-per-object",
            "1ms",
            "--reshard-retry-step",
            "2s",
            "--list-time-per-shard",
            "100us",
            "--latency",
            "put=2ms",
            "--latency",
            "get=1ms..3ms",
            "--latency",
            "list=exp:2ms",
            "--latency",
            "delete=lognormal:2ms,20ms",
            "--fault",
            "slow-down=0.01",
            "--fault",
            "reset=0.5%",
            "--fault",
            "stall=0.002",
            "--fault",
            "key-error=90%",
            "--fault",
            "corrupt=0.1%",
            "--fault",
            "lose-on-reshard=0.2",
            "--fault",
            "list-twice=50%",
            "--stall-time",
            "3s",
            "--fault-seed",
            "9",
            "--fault-ops",
            "get,delete",
            "--no-multi-delete",
            "--max-memory",
            "2MiB",
        ])
        .unwrap();
        let ms = Duration::from_millis;
        assert_eq!(c.index.default_shards, 7);
        assert!(c.index.dynamic);
        assert_eq!(c.index.max_objs_per_shard, 1000);
        assert_eq!(c.index.check_interval, ms(250));
        assert_eq!(c.index.reshard_time_per_object, ms(1));
        assert_eq!(c.index.retry_step, ms(2000));
        assert_eq!(c.index.list_time_per_shard, Duration::from_micros(100));
        assert_eq!(c.latency.put, Some(keystorm_types::Delay::Fixed(ms(2))));
        assert_eq!(
            c.latency.get,
            Some(keystorm_types::Delay::Uniform {
                low: ms(1),
                high: ms(3)
            })
        );
        assert_eq!(
            c.latency.list,
            Some(keystorm_types::Delay::Exponential { mean: ms(2) })
        );
        assert!(matches!(
            c.latency.delete,
            Some(keystorm_types::Delay::LogNormal { .. })
        ));
        assert!(c.latency.head.is_none());
        assert_eq!(c.faults.slow_down, 0.01);
        assert_eq!(c.faults.reset, 0.005);
        assert_eq!(c.faults.stall, 0.002);
        assert_eq!(c.faults.internal_error, 0.0);
        assert_eq!(c.faults.key_error, 0.9);
        assert_eq!(c.faults.corrupt, 0.001);
        assert_eq!(c.faults.lose_on_reshard, 0.2);
        assert_eq!(c.faults.list_twice, 0.5);
        assert_eq!(c.faults.stall_time, ms(3000));
        assert_eq!(c.faults.seed, 9);
        assert_eq!(
            c.faults.ops,
            [keystorm_sim::ObjectOp::Get, keystorm_sim::ObjectOp::Delete]
        );
        assert!(c.no_multi_delete);
        assert_eq!(c.max_memory, Some(2 << 20));
    }

    #[test]
    fn index_faults_are_no_alternative_of_a_requests_fault() {
        let c = parse(&[
            "--fault",
            "reset=0.6",
            "--fault",
            "lose-on-reshard=1",
            "--fault",
            "list-twice=0.9",
        ])
        .unwrap();
        assert_eq!(
            (
                c.faults.reset,
                c.faults.lose_on_reshard,
                c.faults.list_twice
            ),
            (0.6, 1.0, 0.9)
        );
    }

    #[test]
    fn bad_syntax_is_a_clear_error() {
        let cases: &[(&[&str], &str)] = &[
            (&["--index-shards", "many"], "--index-shards"),
            (&["--latency", "put"], "OP=DIST"),
            (&["--fault", "reset"], "KIND=RATE"),
            (
                &["--fault", "boom=0.1"],
                "slow-down, internal-error, reset, stall",
            ),
            (&["--fault", "reset=lots"], "between 0 and 1"),
            (&["--fault", "reset=NaN"], "between 0 and 1"),
        ];
        for (args, expected) in cases {
            let e = parse(args).unwrap_err().to_string();
            assert!(e.contains(expected), "{args:?}: {e}");
        }
    }

    /// A workload whose `target.embedded` is `section`.
    fn twin(section: &str) -> String {
        format!(
            "name: r\ntarget:\n  endpoint: embedded\n  embedded:\n    {section}\n\
             buckets: {{ name: bkt }}\nbefore:\n  - {{ op: put, operations: 10 }}\n"
        )
    }

    #[test]
    fn each_bad_flag_is_refused_as_its_workload_twin_is_with_the_same_message() {
        let cases: &[(&[&str], &str)] = &[
            (&["--index-shards", "0"], "index: { shards: 0 }"),
            (&["--index-shards", "65522"], "index: { shards: 65522 }"),
            (
                &["--max-objs-per-shard", "0"],
                "index: { max_objs_per_shard: 0 }",
            ),
            (
                &["--reshard-check-interval", "5ms"],
                "index: { check_interval: 5ms }",
            ),
            (
                &["--reshard-check-interval", "soon"],
                "index: { check_interval: soon }",
            ),
            (&["--reshard-retry-step", "0s"], "index: { retry_step: 0s }"),
            (&["--latency", "copy=2ms"], "latency: { copy: 2ms }"),
            (&["--latency", "get=3ms..1ms"], "latency: { get: 3ms..1ms }"),
            (
                &["--latency", "get=lognormal:2ms"],
                "latency: { get: \"lognormal:2ms\" }",
            ),
            (&["--fault", "reset=1.5"], "faults: { reset: 1.5 }"),
            (
                &["--fault", "reset=0.6", "--fault", "stall=0.6"],
                "faults: { reset: 0.6, stall: 0.6 }",
            ),
            (
                &["--fault", "lose-on-reshard=2"],
                "faults: { lose_on_reshard: 2 }",
            ),
            (
                &["--fault", "list-twice=-1%"],
                "faults: { list_twice: -0.01 }",
            ),
            (
                &["--fault", "stall=0.1", "--stall-time", "0ms"],
                "faults: { stall: 0.1, stall_time: 0ms }",
            ),
            (&["--fault-seed=-1"], "faults: { seed: -1 }"),
            (&["--fault-ops", "copy"], "faults: { ops: [copy] }"),
            (&["--max-memory", "lots"], "max_memory: lots"),
            (&["--max-memory", "1KiB"], "max_memory: 1KiB"),
            (&["--max-inflight", "0"], "max_inflight: 0"),
        ];
        for (args, section) in cases {
            let text = twin(section);
            let Err(keystorm_workload::spec::SpecError::Invalid { message, .. }) =
                keystorm_workload::spec::parse_workload(&text, "w.yaml")
            else {
                panic!("{section} is accepted in a workload")
            };
            // The flag named is the one whose line is at fault: the first given here.
            let flag = args[0].split('=').next().unwrap();
            let e = parse(args).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("{flag}: {message}"),
                "{args:?} against {section}"
            );
        }
    }
}
