# Sourced by the benches that run beside ../shared/bench/peers (delivery-vs-peers.sh,
# smtp-vs-peers.sh) after they source the peers' common.sh and set $root, $PEERS and $stamp.
#
# wait_for_peers_idle: waits (up to BENCH_PEERS_WAIT s, then gives up) while Postfix or
# smtp-source run, which between our own scenarios means another bench is using them.
wait_for_peers_idle() {
  local max=${BENCH_PEERS_WAIT:-1800} start=$SECONDS
  while pgrep -x smtp-source > /dev/null || pgrep -f '/usr/lib/postfix/sbin/master' > /dev/null; do
    if ((SECONDS - start > max)); then log "another bench still uses Postfix/smtp-source after ${max}s; giving up"; exit 1; fi
    log "another bench is using Postfix or smtp-source; waiting"; sleep 10
  done
}

# begin_peers_session PARAMS: Postfix (the system instance), smtp-sink's port and results.tsv
# are shared by every such bench, so one runs at a time: take $BENCH_DIR/.peers.lock, then wait
# while Postfix or smtp-source are busy anyway (a bench that takes no lock). Then move an old
# results.tsv aside, set the peers up (unless SKIP_SETUP=1) and record the machine's facts,
# with PARAMS (the bench's own settings) as the last line, in $BENCH_DIR/machine.txt.
begin_peers_session() {
  local params=$1
  exec 9> "$BENCH_DIR/.peers.lock"
  flock -w "${BENCH_PEERS_WAIT:-1800}" 9 || { log "another bench holds $BENCH_DIR/.peers.lock"; exit 1; }
  wait_for_peers_idle
  [[ -f "$RESULTS" ]] && mv "$RESULTS" "$RESULTS.$stamp"
  if [[ "${SKIP_SETUP:-0}" != 1 ]]; then
    "$PEERS/setup.sh" > "$BENCH_DIR/setup.log" 2>&1 || { tail -20 "$BENCH_DIR/setup.log"; exit 1; }
  fi
  {
    echo "date: $(date -u +%FT%TZ)"
    echo "nproc: $(nproc)"; free -g | sed -n 1,2p
    grep -m1 'model name' /proc/cpuinfo || true
    uname -r; grep PRETTY_NAME /etc/os-release
    postconf -h mail_version | sed 's/^/postfix /'
    node -v | sed 's/^/node /'
    echo "postline $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" status --porcelain src | grep -q . && echo '+uncommitted-src')"
    echo "loadavg: $(cut -d' ' -f1-3 /proc/loadavg)"
    dd if=/dev/zero of="$BENCH_DIR/.fsync-probe" bs=4k count=500 oflag=dsync 2>&1 | tail -1 | sed 's/^/fsync probe (500 x 4k dsync): /'
    rm -f "$BENCH_DIR/.fsync-probe"
    echo "$params"
  } | tee "$BENCH_DIR/machine.txt"
}
