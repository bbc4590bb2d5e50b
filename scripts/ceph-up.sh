#!/usr/bin/env bash
# Starts a throwaway single-node Ceph cluster on loopback for keystorm's tests and
# benchmarks: one mon, one mgr, one OSD (memstore: data in memory) and two radosgw
# gateways on the same zone, so both serve the same buckets and users: client.rgw.x
# (beast on 127.0.0.1:KEYSTORM_RGW_PORT) and client.rgw.y (127.0.0.1:KEYSTORM_RGW_PORT2),
# each with its own log, PID file and admin socket. It uses Debian's Ceph packages,
# which it installs if they are missing. Everything (conf, keyrings, data, run dir,
# admin sockets, logs, PID files) lives in one directory, KEYSTORM_CEPH_DIR (default
# ${TMPDIR:-/tmp}/keystorm-ceph); scripts/ceph-down.sh stops the daemons and
# removes it. scripts/ceph-rgw.sh kills (SIGKILL) and restarts one gateway, for tests
# that lose a gateway mid-run.
#
# It creates an S3 user and an admin user (caps for the admin ops API) with fixed
# test keys, waits until S3 answers on both gateways, prints the endpoints and the
# keys, and writes them to $KEYSTORM_CEPH_DIR/rgw.env (KEY=value lines, which
# `set -a; . rgw.env` reads; CEPH_CONF there lets radosgw-admin and ceph find the
# cluster):
#   KEYSTORM_RGW_ENDPOINT, KEYSTORM_RGW_ENDPOINT2   the two gateways
#   KEYSTORM_RGW_ACCESS_KEY, KEYSTORM_RGW_SECRET_KEY, KEYSTORM_RGW_ADMIN_ACCESS_KEY,
#   KEYSTORM_RGW_ADMIN_SECRET_KEY, CEPH_CONF, KEYSTORM_RGW_MAX_OBJS_PER_SHARD,
#   KEYSTORM_RGW_RESHARD_INTERVAL
#   KEYSTORM_CEPH_DIR      the cluster's directory
#   KEYSTORM_RGW_CTL       scripts/ceph-rgw.sh (absolute path)
#   KEYSTORM_RGW2_STOP     a command line (for sh -c) that SIGKILLs gateway 2 and
#                          returns once its port refuses connections
#   KEYSTORM_RGW2_START    a command line that starts gateway 2 again and returns
#                          once it answers S3
# Running it again while the cluster is up starts whichever gateway is not running
# (a cluster started before there were two gateways gets its second one, data kept),
# rewrites rgw.env and prints it all again; a half-dead cluster (mon, mgr or OSD
# gone, or a gateway that will not start) is stopped and started afresh.
#
# Environment knobs (defaults suit tests):
#   KEYSTORM_RGW_PORT                 gateway 1's port (7480)
#   KEYSTORM_RGW_PORT2                gateway 2's port (7481)
#   KEYSTORM_RGW_MAX_OBJS_PER_SHARD   rgw_max_objs_per_shard (1000)
#   KEYSTORM_RGW_RESHARD_INTERVAL     seconds between reshard checks (10):
#                                     rgw_reshard_thread_interval and
#                                     rgw_user_quota_bucket_sync_interval
#   KEYSTORM_CEPH_TIMEOUT             seconds to wait for each daemon (90)
set -euo pipefail

dir="${KEYSTORM_CEPH_DIR:-${TMPDIR:-/tmp}/keystorm-ceph}"
# Without trailing slashes: the daemons are told of it and found again by it.
while [ "${dir%/}" != "$dir" ] && [ "$dir" != / ]; do dir="${dir%/}"; done
port="${KEYSTORM_RGW_PORT:-7480}"
port2="${KEYSTORM_RGW_PORT2:-7481}"
max_objs="${KEYSTORM_RGW_MAX_OBJS_PER_SHARD:-1000}"
reshard_interval="${KEYSTORM_RGW_RESHARD_INTERVAL:-10}"
timeout="${KEYSTORM_CEPH_TIMEOUT:-90}"
here="$(cd "$(dirname "$0")" && pwd)"

# Fixed test credentials: this cluster lives on loopback and is thrown away.
access_key="KEYSTORMTESTACCESS01"
secret_key="keystormTestSecret0123456789abcdefghijKL"
admin_access_key="KEYSTORMADMINACCESS1"
admin_secret_key="keystormAdminSecret0123456789abcdefghiK"
admin_caps="buckets=*;users=*;usage=read;metadata=read;zone=read"

marker=".keystorm-ceph"
endpoint="http://127.0.0.1:${port}"
endpoint2="http://127.0.0.1:${port2}"
conf="$dir/ceph.conf"
envfile="$dir/rgw.env"
ctl="$here/ceph-rgw.sh"
# radosgw's caps, for both gateways
rgw_caps=(mon 'allow rw' osd 'allow rwx' mgr 'allow rw')

die() {
  echo "ceph-up: error: $*" >&2
  exit 1
}
say() { echo "ceph-up: $*"; }

for knob in port port2 max_objs reshard_interval timeout; do
  [[ "${!knob}" =~ ^[0-9]+$ ]] || die "$knob must be a whole number, got '${!knob}'"
done
case "$dir" in
  /*) ;;
  *) die "KEYSTORM_CEPH_DIR must be an absolute path, got '$dir'" ;;
esac
if [[ "$dir" =~ [[:space:]] ]]; then
  die "KEYSTORM_CEPH_DIR must not contain whitespace: '$dir'"
fi
[ "$port" != "$port2" ] || die "KEYSTORM_RGW_PORT and KEYSTORM_RGW_PORT2 must differ (both are $port)"
# rgw.env quotes the command lines in single quotes.
case "$here" in
  *\'*) die "the path of scripts/ must not contain a single quote: $here" ;;
esac
[ -x "$ctl" ] || die "$ctl is missing or not executable"

# --- packages ---------------------------------------------------------------
packages=(ceph-mon ceph-mgr ceph-osd radosgw ceph-common uuid-runtime curl util-linux)
missing=()
for cmd in ceph-mon ceph-mgr ceph-osd radosgw ceph ceph-authtool monmaptool radosgw-admin uuidgen curl flock setsid; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    die "missing ${missing[*]}; as root run: apt-get install -y --no-install-recommends ${packages[*]}"
  fi
  command -v apt-get >/dev/null 2>&1 || die "missing ${missing[*]} and there is no apt-get to install them"
  say "installing ${packages[*]} (missing: ${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends "${packages[@]}"; then
    apt-get update
    apt-get install -y --no-install-recommends "${packages[@]}"
  fi
fi

# --- helpers ----------------------------------------------------------------
# True while PID is alive (not a zombie) and was started with this cluster's conf.
ours_alive() {
  local pid="$1" state
  [ -r "/proc/$pid/cmdline" ] || return 1
  state="$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null || true)"
  [ -n "$state" ] && [ "$state" != Z ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$conf"
}

daemon_alive() {
  local pidfile="$dir/run/$1.pid"
  [ -f "$pidfile" ] && ours_alive "$(cat "$pidfile")"
}

port_busy() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Starts a daemon in the foreground of its own process session (setsid), in the
# background of this script, and records its PID. `setsid` execs in place here (a background job of a
# script is no process-group leader), so $! is the daemon itself; checked below.
start_daemon() {
  local name="$1"
  shift
  setsid "$@" -f -c "$conf" </dev/null >>"$dir/log/$name.out" 2>&1 &
  local pid=$!
  echo "$pid" >"$dir/run/$name.pid"
  local deadline=$((SECONDS + 5))
  until ours_alive "$pid"; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      die "$name did not start; see $dir/log/$name.out and $dir/log/"
    fi
    sleep 0.05
  done
}

# Prints the last lines of each named log to stderr: the files may be gone by the
# time anyone looks (the test suite removes the cluster directory), a CI log is not.
show_tails() {
  local file
  for file in "$@"; do
    [ -s "$file" ] || continue
    echo "ceph-up: last lines of $file:" >&2
    tail -n 15 "$file" | sed 's/^/  | /' >&2
  done
}

# Polls CHECK (a command) every 0.2 s until it succeeds; after $timeout seconds,
# or as soon as daemon NAME dies, fails pointing at LOG.
wait_for() {
  local what="$1" name="$2" log="$3"
  shift 3
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! daemon_alive "$name"; then
      show_tails "$log" "$dir/log/$name.out"
      # A daemon that dies without a word has most often met a full disk.
      local free_now
      free_now="$(df -Pm "$dir" | awk 'NR == 2 { print $4 " MiB free (" 100 - $5 "%)" }')"
      die "$name exited while waiting for $what (disk holding $dir: $free_now); see $log and $dir/log/$name.out"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      show_tails "$log"
      die "$what did not happen within ${timeout}s; see $log"
    fi
    sleep 0.2
  done
}

print_info() {
  cat <<EOF
ceph-up: the cluster is up (Ceph $(ceph --version | awk '{ print $3 }'), data in $dir)
  S3 endpoints: $endpoint (gateway 1, client.rgw.x)
                $endpoint2 (gateway 2, client.rgw.y; same buckets and users)
  S3 user:      access key $access_key  secret key $secret_key
  admin user:   access key $admin_access_key  secret key $admin_secret_key
  conf:         CEPH_CONF=$conf  (for ceph and radosgw-admin)
  logs:         $dir/log/
  env file:     $envfile
  (load it with: set -a; . $envfile; set +a)
  kill/restart: $ctl stop 2 / start 2 / status 2
EOF
}

# The ceph.conf section of gateway ID (x or y) listening on PORT.
rgw_section() {
  cat <<EOF

[client.rgw.$1]
rgw data = $dir/rgw.$1
admin socket = $dir/run/\$cluster-\$name.asok
log file = $dir/log/\$name.log
debug rgw = 1/5
# without tcp_nodelay every GET waits 40 ms (Nagle / delayed ACK)
rgw frontends = beast endpoint=127.0.0.1:$2 tcp_nodelay=1
EOF
}

# The port in ceph.conf's [client.rgw.y] section; nothing if there is none (a
# cluster started before there were two gateways).
conf_port2() {
  awk '
    /^[[:space:]]*\[/ { in_sect = ($0 == "[client.rgw.y]"); next }
    in_sect && /^[[:space:]]*rgw frontends/ && match($0, /endpoint=127\.0\.0\.1:[0-9]+/) {
      print substr($0, RSTART + 19, RLENGTH - 19); exit
    }' "$conf"
}

# A value from the current rgw.env, else DEFAULT.
env_value() {
  local v
  v="$(sed -n "s/^$1=//p" "$envfile" 2>/dev/null | tail -n 1)"
  echo "${v:-$2}"
}

# Writes rgw.env in one rename, so a reader never sees half of it.
write_envfile() {
  local cmd
  cmd="$(printf '%q --dir %q' "$ctl" "$dir")"
  cat >"$envfile.tmp" <<EOF
KEYSTORM_RGW_ENDPOINT=$endpoint
KEYSTORM_RGW_ENDPOINT2=$endpoint2
KEYSTORM_RGW_ACCESS_KEY=$access_key
KEYSTORM_RGW_SECRET_KEY=$secret_key
KEYSTORM_RGW_ADMIN_ACCESS_KEY=$admin_access_key
KEYSTORM_RGW_ADMIN_SECRET_KEY=$admin_secret_key
CEPH_CONF=$conf
KEYSTORM_RGW_MAX_OBJS_PER_SHARD=$1
KEYSTORM_RGW_RESHARD_INTERVAL=$2
KEYSTORM_CEPH_DIR=$dir
KEYSTORM_RGW_CTL='$ctl'
KEYSTORM_RGW2_STOP='$cmd stop 2'
KEYSTORM_RGW2_START='$cmd start 2'
EOF
  mv -f "$envfile.tmp" "$envfile"
}

# Gives a running cluster that has no gateway 2 yet (started before there were two)
# its ceph.conf section and its cephx key; each file is replaced in one rename.
add_gateway2() {
  local kr="$dir/keyring" tmp
  if [ -z "$(conf_port2)" ]; then
    say "adding gateway 2 (client.rgw.y, port $port2) to $conf"
    cp -p "$conf" "$conf.tmp"
    rgw_section y "$port2" >>"$conf.tmp"
    mv -f "$conf.tmp" "$conf"
  fi
  if ! grep -qxF '[client.rgw.y]' "$kr"; then
    tmp="$dir/client.rgw.y.keyring"
    CEPH_CONF="$conf" ceph --connect-timeout 5 auth get-or-create client.rgw.y "${rgw_caps[@]}" \
      -o "$tmp" || die "ceph auth get-or-create client.rgw.y failed"
    cp -p "$kr" "$kr.tmp"
    ceph-authtool "$kr.tmp" --import-keyring "$tmp" >/dev/null ||
      die "could not add client.rgw.y's key to $kr"
    mv -f "$kr.tmp" "$kr"
    rm -f "$tmp"
  fi
}

# Starts each gateway that is not running and waits until both answer S3.
start_gateways() {
  "$ctl" --dir "$dir" start 1 && "$ctl" --dir "$dir" start 2
}

# --- already up? --------------------------------------------------------------
# The mon, mgr and OSD (which holds the data) must be alive; a gateway that is not
# is started again, and one missing from ceph.conf is added.
if [ -d "$dir" ]; then
  if [ -f "$dir/$marker" ] && [ -f "$envfile" ] && [ -f "$conf" ] &&
    daemon_alive mon && daemon_alive mgr && daemon_alive osd &&
    grep -qx "KEYSTORM_RGW_ENDPOINT=$endpoint" "$envfile" &&
    { [ -z "$(conf_port2)" ] || [ "$(conf_port2)" = "$port2" ]; }; then
    add_gateway2
    if start_gateways; then
      write_envfile "$(env_value KEYSTORM_RGW_MAX_OBJS_PER_SHARD "$max_objs")" \
        "$(env_value KEYSTORM_RGW_RESHARD_INTERVAL "$reshard_interval")"
      print_info
      exit 0
    fi
    say "a gateway did not come up on the running cluster"
  fi
  if [ ! -f "$dir/$marker" ] && [ -n "$(ls -A "$dir")" ]; then
    die "$dir exists and was not made by ceph-up.sh; remove it or set KEYSTORM_CEPH_DIR"
  fi
  say "found a stopped, half-started or differently configured cluster in $dir: stopping it and starting afresh"
  KEYSTORM_CEPH_DIR="$dir" "$here/ceph-down.sh" --quiet || die "could not clear $dir"
fi

for p in 3300 6789 "$port" "$port2"; do
  if port_busy "$p"; then
    die "127.0.0.1:$p is already in use (another Ceph cluster?); stop it first"
  fi
done

started=$SECONDS
mkdir -p "$dir"
# The mon's store and the daemons' logs need a little room; a full disk otherwise
# shows up only as a mon that exits without saying why.
free_mib="$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')"
if [ -n "$free_mib" ] && [ "$free_mib" -lt 1024 ]; then
  die "only ${free_mib} MiB free on the disk holding $dir; the cluster needs at least 1 GiB (free some space or set KEYSTORM_CEPH_DIR)"
fi
touch "$dir/$marker"
mkdir -p "$dir"/{run,log,crash,mon.a,mgr.x,osd.0,rgw.x,rgw.y}

# If anything below fails, do not leave a half-started cluster running.
on_exit() {
  local status=$?
  if [ "$status" -ne 0 ]; then
    KEYSTORM_CEPH_DIR="$dir" "$here/ceph-down.sh" --keep --quiet || true
    echo "ceph-up: failed; daemons stopped, files kept in $dir" >&2
  fi
}
trap on_exit EXIT

fsid="$(uuidgen)"
cat >"$conf" <<EOF
# Throwaway single-node cluster written by scripts/ceph-up.sh; every path is
# inside $dir.
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:3300,v1:127.0.0.1:6789]
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $dir/keyring
run dir = $dir/run
crash dir = $dir/crash
log to syslog = false
mon warn on insecure global id reclaim allowed = false
err to syslog = false

# one OSD is healthy
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
# radosgw makes 6-7 pools
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
# radosgw's first start: about 1 s instead of 9 s
paxos propose interval = 0.1
paxos min wait = 0.01
# Small or nearly full disks: the mon refuses to start at or below "crit" percent free,
# and the percentage is rounded down (4 GiB free of 250 GiB reads as 1 %). Its store
# holds a few MiB here (object data lives in memory), so only a full disk should stop it.
mon data avail warn = 1
mon data avail crit = 0
mon allow pool delete = true

[mon]
mon data = $dir/mon.\$id
log file = $dir/log/\$name.log
mon cluster log file = $dir/log/cluster.log

[mgr]
mgr data = $dir/mgr.\$id
log file = $dir/log/\$name.log
# only iostat: no module listens on 0.0.0.0
mgr initial modules = iostat

[osd]
osd data = $dir/osd.\$id
log file = $dir/log/\$name.log
osd objectstore = memstore
memstore device bytes = 8589934592

[client]
# read by radosgw and by radosgw-admin alike
rgw dynamic resharding = true
rgw max objs per shard = $max_objs
rgw reshard thread interval = $reshard_interval
rgw user quota bucket sync interval = $reshard_interval
EOF
# The two gateways: same zone, own name, port, log and admin socket.
rgw_section x "$port" >>"$conf"
rgw_section y "$port2" >>"$conf"

# --- keys and mon -------------------------------------------------------------
kr="$dir/keyring"
ceph-authtool --create-keyring "$kr" --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$kr" --gen-key -n client.admin \
  --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
ceph-authtool "$kr" --gen-key -n mgr.x \
  --cap mon 'allow profile mgr' --cap osd 'allow *' --cap mds 'allow *' >/dev/null
for rgw in client.rgw.x client.rgw.y; do
  ceph-authtool "$kr" --gen-key -n "$rgw" --cap "${rgw_caps[0]}" "${rgw_caps[1]}" \
    --cap "${rgw_caps[2]}" "${rgw_caps[3]}" --cap "${rgw_caps[4]}" "${rgw_caps[5]}" >/dev/null
done
chmod 600 "$kr"
monmaptool --create --fsid "$fsid" --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' \
  "$dir/monmap" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$kr" \
  >>"$dir/log/mkfs.out" 2>&1 || die "ceph-mon --mkfs failed; see $dir/log/mkfs.out"

export CEPH_CONF="$conf"
ceph_cli() { ceph --connect-timeout 5 "$@"; }

start_daemon mon ceph-mon -i a
wait_for "the mon to answer" mon "$dir/log/mon.a.log" ceph_cli mon stat

start_daemon mgr ceph-mgr -i x

# --- OSD ---------------------------------------------------------------------
osd_uuid="$(uuidgen)"
osd_secret="$(ceph-authtool --gen-print-key)"
printf '{"cephx_secret": "%s"}\n' "$osd_secret" >"$dir/osd.0/new.json"
osd_id="$(ceph_cli osd new "$osd_uuid" 0 -i "$dir/osd.0/new.json")"
[ "$osd_id" = 0 ] || die "ceph osd new gave id '$osd_id', expected 0"
rm -f "$dir/osd.0/new.json"
ceph-authtool "$kr" -n osd.0 --add-key "$osd_secret" >/dev/null
ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$osd_uuid" \
  >>"$dir/log/mkfs.out" 2>&1 || die "ceph-osd --mkfs failed; see $dir/log/mkfs.out"
store="$(cat "$dir/osd.0/type" 2>/dev/null || true)"
[ "$store" = memstore ] || die "the OSD's object store is '$store', not memstore"
start_daemon osd ceph-osd -i 0
osd_up() { ceph_cli osd stat -f json | grep -q '"num_up_osds":1[,}]'; }
wait_for "osd.0 to be up" osd "$dir/log/osd.0.log" osd_up

# --- radosgw -------------------------------------------------------------------
# Gateway 1 first: it creates the zone's pools, which gateway 2 then finds.
start_gateways || die "a gateway did not come up (see above)"

radosgw-admin user create --uid keystorm --display-name "keystorm test user" \
  --access-key "$access_key" --secret-key "$secret_key" >/dev/null ||
  die "radosgw-admin user create failed"
radosgw-admin user create --uid keystorm-admin --display-name "keystorm admin user" \
  --access-key "$admin_access_key" --secret-key "$admin_secret_key" >/dev/null ||
  die "radosgw-admin user create (admin) failed"
radosgw-admin caps add --uid keystorm-admin --caps "$admin_caps" >/dev/null ||
  die "radosgw-admin caps add failed"

write_envfile "$max_objs" "$reshard_interval"

trap - EXIT
say "started in $((SECONDS - started))s"
print_info
