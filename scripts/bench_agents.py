"""Agents under a controller, measured (see bench_agents.sh): an agent's peak memory per
shard size, and the controller's CPU per heartbeat and per agent-interval (the live merge)
with many agents connected."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench_common import BIN, ENV, anon_mib, mib_cell, start_sim


def start_controller(results):
    p = subprocess.Popen([BIN, "serve", "--port", "0", "--results", results], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    prefix = "keystorm serving "
    if not line.startswith(prefix):
        p.kill()
        sys.exit(f"serve did not start: {line!r}")
    return p, line[len(prefix):]


def start_agent(url, name, results):
    return subprocess.Popen(
        [BIN, "agent", "--controller", url, "--name", name, "--results", results, "--progress", "quiet"],
        env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def agents_view(url):
    with urllib.request.urlopen(f"{url}/api/agents", timeout=10) as r:
        return json.load(r)


def wait_idle(url, n, deadline_s=60):
    end = time.time() + deadline_s
    while time.time() < end:
        if sum(a["state"] == "idle" for a in agents_view(url)["agents"]) >= n:
            return
        time.sleep(0.2)
    sys.exit(f"{n} agents did not connect")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_per_size(counts, tmp):
    sim, endpoint = start_sim("--storage", "size-only")
    controller, url = start_controller(os.path.join(tmp, "controller"))
    print(f"{'keys':>12} {'agent peak RSS':>15} {'anon MiB':>9} {'fill s':>8} {'PUT/s':>9}")
    peaks = []
    try:
        for i, n in enumerate(counts):
            agent = start_agent(url, f"memory-{i}", os.path.join(tmp, f"agent-{i}"))
            wait_idle(url, 1)
            workload = os.path.join(tmp, f"fill-{i}.yaml")
            with open(workload, "w") as f:
                f.write(f"name: bench-agents-{i}\ntarget: {{ endpoint: \"{endpoint}\" }}\n"
                        f"buckets: {{ names: [bench-agents-{i}] }}\nobjects: {{ size: 6B }}\n"
                        f"before:\n  - {{ name: fill, op: put, workers: 64, until_objects: {n} }}\n")
            start = time.time()
            subprocess.run([BIN, "run", workload, "--controller", url, "--agents", "1"], env=ENV, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            took = time.time() - start
            run = agents_view(url)["run"]["merged_run"]
            shards = os.path.join(tmp, "controller", run, "shards")
            part = os.listdir(shards)[0]
            with open(os.path.join(shards, part, "manifest.json")) as f:
                manifest = json.load(f)
            peak_kib = manifest["peak_rss_kib"]
            peaks.append(peak_kib)
            print(f"{n:>12,} {peak_kib / 1024:>11.1f} MiB {mib_cell(anon_mib(manifest), 9)} "
                  f"{took:>8.1f} {n / took:>9,.0f}")
            agent.terminate()
            agent.wait()
    finally:
        controller.kill()
        sim.kill()
    print(f"agent peak memory at {counts[-1]:,} keys / at {counts[0]:,} keys: {peaks[-1] / peaks[0]:.2f}x "
          f"for {counts[-1] / counts[0]:,.0f}x the keys")


def post_json(url, path, body):
    req = urllib.request.Request(f"{url}{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def controller_cpu(agents, seconds, tmp):
    """The controller's CPU with `agents` agents connected: idle (heartbeats only), then
    while they run a 70/20/5/5 mix for `seconds` and send each interval with its four
    histograms (the live merge), per agent-interval."""
    sim, endpoint = start_sim("--storage", "size-only")
    results = os.path.join(tmp, "controller-cpu")
    controller, url = start_controller(results)
    procs = [start_agent(url, f"cpu-{i}", os.path.join(tmp, f"cpu-{i}")) for i in range(agents)]
    try:
        wait_idle(url, agents)
        before = cpu_seconds(controller.pid)
        time.sleep(seconds)
        idle = cpu_seconds(controller.pid) - before
        heartbeats = agents * seconds * 2  # every 500 ms
        print(f"controller with {agents} agents idle: {idle:.2f} s CPU in {seconds} s, "
              f"{idle / heartbeats * 1e6:.0f} µs per heartbeat ({idle / seconds * 100:.1f} % of a core)")

        workload = (f"name: bench-live\ntarget: {{ endpoint: \"{endpoint}\" }}\n"
                    f"buckets: {{ names: [bench-live] }}\nobjects: {{ size: 1KiB }}\n"
                    f"before:\n  - {{ name: fill, op: put, workers: 4, until_objects: {agents * 200} }}\n"
                    f"rounds:\n  count: 1\n  phases:\n"
                    f"    - {{ name: mixed, mix: {{ get: 70, put: 20, list: 5, delete: 5 }}, workers: 1, "
                    f"rate: {agents * 40}, duration: {seconds}s }}\n")
        before = cpu_seconds(controller.pid)
        started = time.time()
        run_id = post_json(url, "/api/runs", {"yaml": workload, "agents": agents})["run_id"]
        # The steady part: every shard in the mix, then a window well inside it (no
        # barrier, no part upload), in which each agent sends one interval a second.
        while not all("mixed" in (s["phase"] or "") for s in agents_view(url)["run"]["shards"]):
            time.sleep(0.2)
        time.sleep(2)
        window = seconds - 6
        steady_before = cpu_seconds(controller.pid)
        time.sleep(window)
        steady = cpu_seconds(controller.pid) - steady_before
        while agents_view(url)["run"]["state"] == "running":
            time.sleep(0.5)
        took = time.time() - started
        used = cpu_seconds(controller.pid) - before
        while agents_view(url)["run"]["state"] != "completed":
            time.sleep(0.5)
        shards = os.path.join(results, run_id, "shards")
        sent = 0
        for part in os.listdir(shards):
            with open(os.path.join(shards, part, "intervals.jsonl")) as f:
                sent += sum(1 for _ in f)
        steady_intervals = agents * window
        print(f"controller with {agents} agents running a mix, merging live: {steady:.2f} s CPU in a steady "
              f"{window} s window = {steady / steady_intervals * 1e6:.0f} µs per agent-interval, heartbeats "
              f"included ({steady / window * 100:.1f} % of a core); the whole run {used:.2f} s CPU in "
              f"{took:.1f} s for {sent:,} agent-intervals (barriers and part uploads included)")
    finally:
        for p in procs:
            p.kill()
        controller.kill()
        sim.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", default="100000,1000000,10000000")
    ap.add_argument("--agents", type=int, default=16)
    ap.add_argument("--seconds", type=int, default=20)
    args = ap.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    with tempfile.TemporaryDirectory(prefix="keystorm-bench-agents-") as tmp:
        memory_per_size(counts, tmp)
        controller_cpu(args.agents, args.seconds, tmp)


if __name__ == "__main__":
    main()
