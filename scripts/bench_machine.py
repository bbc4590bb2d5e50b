"""How quiet the machine was while the benchmark table ran, and the `--busy` load.

A client's CPU per operation moves when other processes compete for the cores, so the
table says what else ran: the load average at the start and end, and the CPU time the
whole machine spent (from /proc/stat) less what this script and its children spent.
`Busy` starts `yes > /dev/null` processes to measure with the cores kept busy on
purpose; they die with this script, even when it is interrupted or killed.
"""

import ctypes
import os
import signal
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def machine_cpu_s():
    """CPU seconds all cores spent busy since boot (user, nice, system, irq, softirq,
    steal), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / TICK


def own_cpu_s():
    """CPU seconds of this process and of its children it has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def process_cpu_s(pid):
    """User + system CPU seconds of a running process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Quiet:
    """Machine CPU and load average from `start()` to `stop()`."""

    def start(self):
        self.load_start = os.getloadavg()
        self.t0 = time.monotonic()
        self.machine0 = machine_cpu_s()
        self.own0 = own_cpu_s()

    def stop(self, busy_cpu_s):
        """What the machine did meanwhile; `busy_cpu_s`: the `--busy` processes' CPU."""
        wall = time.monotonic() - self.t0
        machine = machine_cpu_s() - self.machine0
        own = own_cpu_s() - self.own0 - busy_cpu_s
        other = max(machine - own - busy_cpu_s, 0.0)
        return {
            "cores": os.cpu_count(),
            "wall_s": round(wall, 1),
            "loadavg_start": [round(x, 2) for x in self.load_start],
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
            "machine_cpu_s": round(machine, 1),
            "benchmark_cpu_s": round(own, 1),
            "busy_cpu_s": round(busy_cpu_s, 1),
            "other_cpu_s": round(other, 1),
            "other_share_of_one_core": round(other / wall, 3) if wall > 0 else None,
        }


def describe(q):
    """One line for a reader: was the run quiet?"""
    load = f"load average (1-min) {q['loadavg_start'][0]:.2f} at start, {q['loadavg_end'][0]:.2f} at end"
    other = (f"other processes used {q['other_cpu_s']:.1f} CPU-s in {q['wall_s']:.0f} s "
             f"({q['other_share_of_one_core'] * 100:.0f} % of one core)")
    busy = f"; --busy processes {q['busy_cpu_s']:.1f} CPU-s" if q["busy_cpu_s"] else ""
    return (f"machine: {q['cores']} cores; {load}; {other}; the benchmark's own processes "
            f"{q['benchmark_cpu_s']:.1f} CPU-s{busy}")


def _die_with_parent():
    # prctl(PR_SET_PDEATHSIG, SIGKILL): the child is killed when this script dies.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


class Busy:
    """`n` processes of `yes > /dev/null` while the `with` block runs."""

    def __init__(self, n):
        self.n = n
        self.procs = []
        self.cpu_s = 0.0

    def __enter__(self):
        for _ in range(self.n):
            self.procs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL,
                                               preexec_fn=_die_with_parent))
        return self

    def used(self):
        """CPU seconds the processes used so far."""
        return self.cpu_s + sum(process_cpu_s(p.pid) for p in self.procs)

    def __exit__(self, *exc):
        self.cpu_s = self.used()
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []
