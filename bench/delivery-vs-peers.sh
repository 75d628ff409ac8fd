#!/usr/bin/env bash
# End-to-end delivery rate, Postline next to Postfix and the loopback limit, in ONE round loop
# (issue 2, "Speed"). Uses the peers' scripts in ../shared/bench/peers read-only:
#   A-sink      smtp-source → smtp-sink                       (loopback SMTP limit)
#   B-postfix   smtp-source → Postfix (queue, fsync) → smtp-sink
#   D-postline  POST /emails/batch → Postline (all roles: accept, queue, deliver via MX lookup
#               on a loopback DNS server) → smtp-sink          (bench/delivery-run.ts)
#   D-postline-split  the same with two Postline processes on one database: --roles api,smtp
#               and --roles worker (how two nodes share the queue; uses both cores)
# Every scenario sends N messages of ~2 KB to the same smtp-sink on 127.0.0.1:$SINK_PORT; the
# end-to-end rate is N / (time from the first submission until the sink counted N).
# Rounds alternate the order of B and D so slow spells of the shared host hit both alike.
# Rows go to $RESULTS ($BENCH_DIR/results.tsv, the peers' format; summarize.sh reads it) and a
# copy with the machine facts to bench/results/.
#
#   sudo bench/delivery-vs-peers.sh                # setup + 3 rounds, ~4-5 minutes
#   SKIP_SETUP=1 ROUNDS=1 N=5000 bench/delivery-vs-peers.sh
# Each scenario first waits (up to BENCH_QUIET_WAIT=180 s) until the shared machine is quiet
# (under BENCH_QUIET_PCT=25 % of a core busy); Postline's helper does the same once it is up.
# Env: TOPOLOGIES ("single split"), ROUNDS (3), N (20000), CLIENTS (4 concurrent batch requests), PEERS (peer scripts),
#      POSTLINE_ENTRY=dist (run the build instead of tsx), DB=external (Postline on
#      EXTERNAL_DATABASE_URL instead of its embedded server), BENCH_DIR (/tmp/mta-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
PEERS=${PEERS:-$(cd "$root/../shared/bench/peers" && pwd)}
# shellcheck source=/dev/null
source "$PEERS/common.sh"
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-4}
DB=${DB:-embedded}
TOPOLOGIES=${TOPOLOGIES:-single split}
stamp=$(date -u +%Y%m%d-%H%M%S)
# shellcheck source=support/peers-session.sh
source "$here/support/peers-session.sh"

begin_peers_session "N=$N SIZE=$SIZE SESSIONS=$SESSIONS ROUNDS=$ROUNDS CLIENTS=$CLIENTS DB=$DB TOPOLOGIES=$TOPOLOGIES"
results_header
CPU_TSV="$BENCH_DIR/cpu.tsv"   # scenario, run, CPU µs per message of the MTA under test
: > "$CPU_TSV"
SAMPLER_PID=""
trap 'sink_stop; [[ -z $SAMPLER_PID ]] || kill "$SAMPLER_PID" 2>/dev/null || true' EXIT

# Busy % of one core over 3 s, whole machine (see bench/support/quiet.ts).
busy_pct() {
  local a b
  read -r -a a < /proc/stat; sleep 3; read -r -a b < /proc/stat
  awk -v n="$(nproc)" -v u="$((b[1] + b[2] + b[3] + b[6] + b[7] + b[8] - a[1] - a[2] - a[3] - a[6] - a[7] - a[8]))" \
      -v i="$((b[4] + b[5] - a[4] - a[5]))" 'BEGIN { printf "%d", (u + i > 0) ? 100 * n * u / (u + i) : 0 }'
}
# Wait (at most BENCH_QUIET_WAIT s, default 180; 0 disables) until others leave the machine quiet.
wait_quiet() {
  local max=${BENCH_QUIET_WAIT:-180} pct=${BENCH_QUIET_PCT:-25} start=$SECONDS busy
  ((max > 0)) || return 0
  busy=$(busy_pct)
  ((busy < pct)) || log "$1: machine busy ${busy}% of a core; waiting up to ${max}s"
  while ((busy >= pct && SECONDS - start < max)); do busy=$(busy_pct); done
  ((busy < pct)) || log "$1: still ${busy}% busy after ${max}s; measuring anyway"
}

# CPU of a running Postfix, in clock ticks: the master's own and its reaped children's
# (cutime/cstime), plus its live children's. Postfix's services are all children of master.
postfix_ticks() {
  local master
  master=$(tr -d ' ' < /var/spool/postfix/pid/master.pid 2>/dev/null) || return 1
  [[ -n $master && -r /proc/$master/stat ]] || return 1
  awk -v m="$master" '{ pid = FILENAME; gsub(/[^0-9]/, "", pid); line = $0; sub(/^.*\) /, "", line); split(line, f, " ")
         if (pid == m || f[2] == m) t += f[12] + f[13] + f[14] + f[15] }
       END { printf "%s %d\n", m, t }' /proc/[0-9]*/stat 2>/dev/null
}
# Samples Postfix's CPU every second while scenario-b-postfix.sh runs (the peers' script is used
# unchanged): the largest sample of a master minus its first is the CPU of that run, within a
# second (it includes submission through smtpd, as Postline's includes its API).
postfix_cpu_sampler() {     # postfix_cpu_sampler <file>
  while :; do postfix_ticks >> "$1" || true; sleep 1; done
}
postfix_run() {             # postfix_run <run#>
  local samples="$BENCH_DIR/postfix-cpu-$1.txt"
  : > "$samples"
  postfix_cpu_sampler "$samples" & SAMPLER_PID=$!
  "$PEERS/scenario-b-postfix.sh"
  kill "$SAMPLER_PID" 2>/dev/null || true; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=""
  # max, not last: during `postfix stop` exited children drop out before master reaps them
  awk -v run="$1" -v n="$N" '{ if (!($1 in first)) first[$1] = $2; if ($2 > top[$1]) top[$1] = $2; m = $1 }
       END { if (m != "") printf "B-postfix\t%s\t%d\n", run, (top[m] - first[m]) * 10000 / n }' "$samples" >> "$CPU_TSV"
}

postline_run() {            # postline_run <run#> <topology: single|split>
  local run=$1 topology=$2 label=D-postline
  [[ $topology == single ]] || label=D-postline-$topology
  sink_start "$label-$run" || return 1
  (cd "$root" && node --import tsx "$here/delivery-run.ts" --label "$label" --run "$run" --n "$N" --topology "$topology" \
      --clients "$CLIENTS" --db "$DB" --sink-port "$SINK_PORT" --sink-out "$SINK_OUT" --results "$RESULTS" --cpu-results "$CPU_TSV") \
    > "$BENCH_DIR/$label-$run.log" 2>&1 || log "$label run $run failed: $(tail -3 "$BENCH_DIR/$label-$run.log")"
  grep -P "^$label\t|^cpu" "$BENCH_DIR/$label-$run.log" >&2 || true
  sink_stop
}
postline_runs() { local t; for t in $TOPOLOGIES; do postline_run "$1" "$t"; done; }

for ((round = 1; round <= ROUNDS; round++)); do
  export RUNS=1 RUN_OFFSET=$((round - 1))
  log "round $round/$ROUNDS"
  wait_quiet A-sink; "$PEERS/scenario-a-sink.sh"
  if ((round % 2)); then
    wait_quiet B-postfix; postfix_run "$round"; postline_runs "$round"
  else
    postline_runs "$round"; wait_quiet B-postfix; postfix_run "$round"
  fi
done

"$PEERS/summarize.sh" | tee "$BENCH_DIR/summary.md"
# Postline vs Postfix within each round (same minutes of the shared host), then the median.
python3 - "$RESULTS" "$CPU_TSV" <<'PY' | tee -a "$BENCH_DIR/summary.md"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter='\t') if r['status'] == 'ok']
e2e = {(r['scenario'], r['run']): float(r['e2e_per_s']) for r in rows}
ours = sorted({r['scenario'] for r in rows if r['scenario'].startswith('D-')})
for d_name in ours:
    ratios = []
    print(f'\n| round | {d_name} e2e/s | B-postfix e2e/s | {d_name} ÷ Postfix | {d_name} ÷ A-sink |')
    print('|---|---|---|---|---|')
    for run in sorted({r['run'] for r in rows}, key=int):
        d, b, a = e2e.get((d_name, run)), e2e.get(('B-postfix', run)), e2e.get(('A-sink', run))
        if d and b:
            ratios.append(d / b)
            print(f"| {run} | {d:.0f} | {b:.0f} | {d / b:.2f}× | {d / a:.1%} |" if a else f"| {run} | {d:.0f} | {b:.0f} | {d / b:.2f}× | |")
    if ratios:
        print(f"\nmedian {d_name} ÷ Postfix (end to end, same round): {statistics.median(ratios):.2f}× (target ≥ 2×)")
cpu = {}
for line in open(sys.argv[2]):
    name, run, us = line.split('\t')
    cpu.setdefault(name, []).append(float(us))
if cpu:
    print('\n| MTA under test | CPU µs per message, median (min-max) |')
    print('|---|---|')
    for name, v in cpu.items():
        print(f"| {name} | {statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f}) |")
    print('(Postfix: all its processes; Postline: its process(es), without PostgreSQL, which is printed per run in the logs)')
PY
mkdir -p "$here/results"
{ sed 's/^/# /' "$BENCH_DIR/machine.txt"; cat "$RESULTS"; sed 's/^/# cpu\t/' "$CPU_TSV"; } > "$here/results/delivery-vs-peers-$stamp.tsv"
cp "$BENCH_DIR/summary.md" "$here/results/delivery-vs-peers-$stamp.md"
log "rows: $RESULTS (copy: bench/results/delivery-vs-peers-$stamp.tsv)"
