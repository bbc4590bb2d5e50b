#!/usr/bin/env bash
# Kills, starts or checks one radosgw of the throwaway cluster of scripts/ceph-up.sh,
# so that a test can lose a gateway in the middle of a run and bring it back. Both
# gateways serve the same zone (same pools, buckets and users):
#   gateway 1  client.rgw.x  KEYSTORM_RGW_ENDPOINT   (port KEYSTORM_RGW_PORT, 7480)
#   gateway 2  client.rgw.y  KEYSTORM_RGW_ENDPOINT2  (port KEYSTORM_RGW_PORT2, 7481)
# Each gateway's port is read from the cluster's ceph.conf, so the commands need only
# the cluster's directory: --dir DIR, else KEYSTORM_CEPH_DIR, else
# ${TMPDIR:-/tmp}/keystorm-ceph. rgw.env names this script (KEYSTORM_RGW_CTL), the
# directory (KEYSTORM_CEPH_DIR), and the two command lines for gateway 2
# (KEYSTORM_RGW2_STOP, KEYSTORM_RGW2_START; run them with sh -c).
#
# Usage: scripts/ceph-rgw.sh [--dir DIR] stop|start|status 1|2
#   stop    SIGKILL the gateway (no clean shutdown: it dies as in a crash) and return
#           once its port refuses connections. A gateway that is not running is only
#           checked for that.
#   start   start the gateway and return once it answers S3 on its port, within
#           KEYSTORM_CEPH_TIMEOUT seconds (default 90); fails, with the end of its
#           log, if it exits or does not answer in time. A gateway that is running
#           and answering is left alone.
#   status  print whether it runs; exit 0 if it runs and answers S3, 3 if it is not
#           running, 1 if it runs but does not answer.
# One command at a time per gateway: concurrent calls wait for each other.
set -euo pipefail

die() {
  echo "ceph-rgw: error: $*" >&2
  exit 1
}
usage() {
  echo "usage: $0 [--dir DIR] stop|start|status 1|2" >&2
  exit 2
}

dir="${KEYSTORM_CEPH_DIR:-${TMPDIR:-/tmp}/keystorm-ceph}"
action=""
gw=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir)
      [ $# -ge 2 ] || usage
      dir="$2"
      shift 2
      ;;
    --dir=*)
      dir="${1#--dir=}"
      shift
      ;;
    -h | --help)
      sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    stop | start | status)
      [ -z "$action" ] || usage
      action="$1"
      shift
      ;;
    1 | 2)
      [ -z "$gw" ] || usage
      gw="$1"
      shift
      ;;
    *)
      echo "ceph-rgw: unknown argument '$1'" >&2
      usage
      ;;
  esac
done
if [ -z "$action" ] || [ -z "$gw" ]; then usage; fi
# Without trailing slashes, as ceph-up.sh writes it into the daemons' command lines.
while [ "${dir%/}" != "$dir" ] && [ "$dir" != / ]; do dir="${dir%/}"; done
case "$dir" in
  /*) ;;
  *) die "the cluster directory must be an absolute path, got '$dir'" ;;
esac

timeout="${KEYSTORM_CEPH_TIMEOUT:-90}"
[[ "$timeout" =~ ^[0-9]+$ ]] || die "KEYSTORM_CEPH_TIMEOUT must be a whole number, got '$timeout'"
# A SIGKILLed process is gone within milliseconds; this only bounds the waits.
stop_timeout="${KEYSTORM_CEPH_STOP_TIMEOUT:-10}"
[[ "$stop_timeout" =~ ^[0-9]+$ ]] || die "KEYSTORM_CEPH_STOP_TIMEOUT must be a whole number, got '$stop_timeout'"

conf="$dir/ceph.conf"
if [ ! -f "$dir/.keystorm-ceph" ] || [ ! -f "$conf" ]; then
  die "no cluster of scripts/ceph-up.sh in $dir (no $conf); start one with scripts/ceph-up.sh or pass --dir"
fi

case "$gw" in
  1) id=x pidname=rgw ;;
  2) id=y pidname=rgw2 ;;
esac
name="client.rgw.$id"
pidfile="$dir/run/$pidname.pid"
log="$dir/log/$name.log"
out="$dir/log/$pidname.out"

# The beast port of SECTION in ceph.conf ("rgw frontends = beast endpoint=127.0.0.1:PORT").
port="$(awk -v sect="[$name]" '
  /^[[:space:]]*\[/ { in_sect = ($0 == sect); next }
  in_sect && /^[[:space:]]*rgw frontends/ && match($0, /endpoint=127\.0\.0\.1:[0-9]+/) {
    print substr($0, RSTART + 19, RLENGTH - 19); exit
  }' "$conf")"
[ -n "$port" ] ||
  die "$conf has no [$name] section with 'rgw frontends = beast endpoint=127.0.0.1:PORT'; run scripts/ceph-up.sh again to add gateway $gw"
endpoint="http://127.0.0.1:$port"

say() { echo "ceph-rgw: gateway $gw ($name, $endpoint): $*"; }

# True while PID is alive (not a zombie) and was started with this cluster's conf.
ours_alive() {
  local pid="$1" state
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  state="$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null || true)"
  [ -n "$state" ] && [ "$state" != Z ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$conf"
}

# The gateway's PID if it is running, else nothing.
running_pid() {
  local pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if ours_alive "$pid"; then echo "$pid"; fi
}

s3_answers() {
  # Any HTTP answer counts: an anonymous GET / gets a ListAllMyBuckets reply, and
  # radosgw opens its port only once it can serve requests.
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$endpoint/" 2>/dev/null || true)"
  [ -n "$code" ] && [ "$code" != 000 ]
}

port_busy() {
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# Prints the last lines of each named log to stderr.
show_tails() {
  local file
  for file in "$@"; do
    [ -s "$file" ] || continue
    echo "ceph-rgw: last lines of $file:" >&2
    tail -n 15 "$file" | sed 's/^/  | /' >&2
  done
}

# Waits until the gateway answers S3; fails as soon as PID dies, or after $timeout s.
wait_answering() {
  local pid="$1" deadline=$((SECONDS + timeout))
  until s3_answers; do
    if ! ours_alive "$pid"; then
      show_tails "$log" "$out"
      die "gateway $gw ($name, pid $pid) exited before answering on $endpoint; see $log and $out"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      show_tails "$log" "$out"
      die "gateway $gw ($name, pid $pid) did not answer on $endpoint within ${timeout}s; see $log"
    fi
    sleep 0.05
  done
}

mkdir -p "$dir/run" "$dir/log" "$dir/rgw.$id"
# One command per gateway at a time: a start racing a stop (or ceph-up.sh) would
# otherwise start two daemons or kill one just started.
exec 9>>"$dir/run/$pidname.lock"
flock -w "$((timeout + stop_timeout))" 9 || die "another ceph-rgw.sh on gateway $gw held its lock for too long"

t0="$(now_ms)"
pid="$(running_pid)"

case "$action" in
  status)
    if [ -z "$pid" ]; then
      say "not running"
      exit 3
    fi
    if s3_answers; then
      say "running (pid $pid), answers S3"
      exit 0
    fi
    say "running (pid $pid) but does not answer S3"
    exit 1
    ;;

  stop)
    if [ -n "$pid" ]; then
      kill -KILL "$pid" 2>/dev/null || true
      deadline=$((SECONDS + stop_timeout))
      while ours_alive "$pid"; do
        [ "$SECONDS" -lt "$deadline" ] || die "gateway $gw (pid $pid) still runs ${stop_timeout}s after SIGKILL"
        sleep 0.01
      done
      rm -f "$pidfile"
      what="killed (pid $pid)"
    else
      rm -f "$pidfile"
      what="was not running"
    fi
    # The listening socket closes with the process; wait for the kernel to say so.
    deadline=$((SECONDS + stop_timeout))
    while port_busy; do
      [ "$SECONDS" -lt "$deadline" ] ||
        die "127.0.0.1:$port still accepts connections ${stop_timeout}s after gateway $gw stopped: another process listens there"
      sleep 0.01
    done
    say "$what; the port refuses connections ($(($(now_ms) - t0)) ms)"
    ;;

  start)
    if [ -n "$pid" ]; then
      wait_answering "$pid"
      say "already running (pid $pid), answers S3"
      exit 0
    fi
    if port_busy; then
      die "127.0.0.1:$port is already in use by another process; gateway $gw cannot listen there"
    fi
    command -v radosgw >/dev/null 2>&1 || die "radosgw is not installed (scripts/ceph-up.sh installs it)"
    # Its own session (setsid), so that the caller's process group and terminal do
    # not take it down; fd 9 (the lock) closed, or the daemon would hold the lock.
    # `setsid` execs in place here (a background job of a script is no
    # process-group leader), so $! is the daemon itself.
    setsid radosgw -n "$name" -f -c "$conf" </dev/null >>"$out" 2>&1 9>&- &
    pid=$!
    echo "$pid" >"$pidfile"
    deadline=$((SECONDS + 5))
    until ours_alive "$pid"; do
      if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
        show_tails "$out"
        die "radosgw for gateway $gw did not start; see $out and $log"
      fi
      sleep 0.01
    done
    wait_answering "$pid"
    say "started (pid $pid), answers S3 ($(($(now_ms) - t0)) ms)"
    ;;
esac
