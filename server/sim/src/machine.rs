//! How much memory the target may count on: the machine's, or less when the process
//! runs in a control group with a memory limit (containers). The default memory budget
//! is half of it, so a target that fills up answers writes with an error instead of
//! being killed by the kernel with everything it holds.

use std::path::Path;

/// Budget when the machine's memory cannot be read (not Linux).
const FALLBACK: u64 = 4 << 30;

/// The default memory budget: half of [`available`], or 4 GiB when unknown.
pub fn default_budget() -> u64 {
    available().map_or(FALLBACK, |m| m / 2)
}

/// The smaller of MemTotal and the process's cgroup memory limit, if known.
pub fn available() -> Option<u64> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_total(&t));
    let limit = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|t| cgroup_limit(&t, Path::new("/sys/fs/cgroup")));
    match (total, limit) {
        (Some(t), Some(l)) => Some(t.min(l)),
        (t, l) => t.or(l),
    }
}

/// `MemTotal` of /proc/meminfo, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The memory limit of the cgroups named in /proc/self/cgroup (v2 `memory.max`, v1
/// `memory.limit_in_bytes`), looked up under `root` at the group's own path and at the
/// mount's top (inside a container the mount often is the group itself). "max" and
/// v1's near-2^63 "unlimited" are no limit.
fn cgroup_limit(self_cgroup: &str, root: &Path) -> Option<u64> {
    let mut limits = Vec::new();
    for line in self_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        let (dir, file) = match controllers {
            "" => (root.to_path_buf(), "memory.max"),
            c if c.split(',').any(|c| c == "memory") => {
                (root.join("memory"), "memory.limit_in_bytes")
            }
            _ => continue,
        };
        for candidate in [dir.join(path).join(file), dir.join(file)] {
            if let Some(l) = std::fs::read_to_string(&candidate)
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .filter(|l| *l < 1 << 62)
            {
                limits.push(l);
            }
        }
    }
    limits.into_iter().min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_total() {
        let meminfo = "MemTotal:       24683656 kB\nMemFree:         1089968 kB\n";
        assert_eq!(mem_total(meminfo), Some(24_683_656 * 1024));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn reads_v1_and_v2_cgroup_limits_and_ignores_unlimited() {
        let root = std::env::temp_dir().join(format!("keystorm-cgroup-{}", std::process::id()));
        let v2 = root.join("app");
        std::fs::create_dir_all(&v2).unwrap();
        std::fs::write(v2.join("memory.max"), "2147483648\n").unwrap();
        assert_eq!(cgroup_limit("0::/app\n", &root), Some(2 << 30));
        std::fs::write(v2.join("memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_limit("0::/app\n", &root), None);
        let v1 = root.join("memory");
        std::fs::create_dir_all(&v1).unwrap();
        std::fs::write(v1.join("memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        assert_eq!(cgroup_limit("4:memory:/x/y\n0::/app\n", &root), None);
        std::fs::write(v1.join("memory.limit_in_bytes"), "1073741824\n").unwrap();
        assert_eq!(cgroup_limit("4:memory:/x/y\n", &root), Some(1 << 30));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
