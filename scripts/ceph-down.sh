#!/usr/bin/env bash
# Stops the throwaway Ceph cluster that scripts/ceph-up.sh started: exactly the
# daemons whose PIDs it or scripts/ceph-rgw.sh recorded (both radosgw gateways, then
# the OSD, the mgr and the mon), each with SIGTERM and, if it has not exited after
# KEYSTORM_CEPH_STOP_TIMEOUT seconds (default 10), SIGKILL. Then it removes the
# cluster's directory (KEYSTORM_CEPH_DIR, default ${TMPDIR:-/tmp}/keystorm-ceph)
# unless --keep is given. With nothing running it says so and does nothing else.
#
# Usage: scripts/ceph-down.sh [--keep] [--quiet]
set -euo pipefail

keep=0
quiet=0
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    --quiet) quiet=1 ;;
    -h | --help)
      sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "ceph-down: unknown argument '$arg' (expected --keep or --quiet)" >&2
      exit 2
      ;;
  esac
done

dir="${KEYSTORM_CEPH_DIR:-${TMPDIR:-/tmp}/keystorm-ceph}"
# Without trailing slashes: the daemons are told of it and found again by it.
while [ "${dir%/}" != "$dir" ] && [ "$dir" != / ]; do dir="${dir%/}"; done
stop_timeout="${KEYSTORM_CEPH_STOP_TIMEOUT:-10}"
# ceph-up.sh writes this file first: a directory without it is not ours to delete.
marker=".keystorm-ceph"

say() { if [ "$quiet" = 0 ]; then echo "ceph-down: $*"; fi; }

# True while PID is a live (not zombie) process started with this cluster's conf,
# so a PID reused by an unrelated process is never signalled.
ours_alive() {
  local pid="$1" state
  [ -r "/proc/$pid/cmdline" ] || return 1
  state="$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null || true)"
  [ -n "$state" ] && [ "$state" != Z ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/ceph.conf"
}

# Stops one daemon by its recorded PID; returns 0 if it was running.
stop_daemon() {
  local name="$1" pidfile="$dir/run/$1.pid" pid deadline
  [ -f "$pidfile" ] || return 1
  pid="$(cat "$pidfile")"
  if ! [[ "$pid" =~ ^[0-9]+$ ]] || ! ours_alive "$pid"; then
    rm -f "$pidfile"
    return 1
  fi
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + stop_timeout))
  while ours_alive "$pid"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      say "$name (pid $pid) ignored SIGTERM for ${stop_timeout}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      deadline=$((SECONDS + 5))
      while ours_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
      break
    fi
    sleep 0.05
  done
  rm -f "$pidfile"
  say "stopped $name (pid $pid)"
  return 0
}

if [ ! -d "$dir" ]; then
  say "nothing is running (no $dir)"
  exit 0
fi
if [ ! -f "$dir/$marker" ]; then
  echo "ceph-down: $dir was not made by ceph-up.sh (no $marker file); leaving it alone" >&2
  exit 1
fi

stopped=0
for name in rgw2 rgw osd mgr mon; do
  if stop_daemon "$name"; then stopped=$((stopped + 1)); fi
done
if [ "$stopped" = 0 ]; then
  say "nothing is running (no live daemon recorded in $dir/run)"
fi

if [ "$keep" = 1 ]; then
  say "kept $dir"
else
  rm -rf -- "$dir"
  say "removed $dir"
fi
