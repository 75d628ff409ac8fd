#!/usr/bin/env bash
# SMTP submission rate, Postline next to Postfix and the loopback limit, in ONE round loop
# (issue 4, "Speed"). Uses the peers' scripts in ../shared/bench/peers read-only:
#   A-sink           smtp-source → smtp-sink, 1 msg per connection  (loopback SMTP limit)
#   B-postfix        smtp-source → Postfix (queue, fsync), 1 msg per connection: its submit rate
#   D-postline-smtp-1    bench/smtp-submission.ts: 20 sessions, STARTTLS + AUTH, 1 msg per connection
#   D-postline-smtp-100  the same, 100 msgs per connection
# Postline's generator is bench/support/smtp-tls-source.c (C and OpenSSL, as smtp-source is C;
# CLIENT=lean or CLIENT=nodemailer for the JavaScript ones, whose rows are labelled so).
# FLOORS=1: each round also runs the same load against two floors under Postline (rows
# D-floor-tls-floor-*, D-floor-smtp-server-*; bench/support/floor-server.ts): Node's TCP+TLS
# answering a line at a time, and bare smtp-server keeping nothing.
# POSTFIX_TLS=1: each round also runs the same load against Postfix with STARTTLS (rows
# E-postfix-tls-*; bench/support/postfix-tls.sh: the peers' Postfix plus TLS, no AUTH), and
# the summary compares Postline with it too: the peers' B-postfix pays for no TLS at all.
# DELIVERING=1: Postline runs every role and delivers to an smtp-sink while it accepts, as
# Postfix does in its run (rows labelled -delivering); by default it only accepts (api,smtp).
# The submit rate is N / (time until the last message was answered 250). Postfix gets no TLS
# or AUTH in the peers' setup; Postline always does both (AUTH needs TLS), and signs at delivery.
# Rounds alternate the order of B and D so slow spells of the shared host hit both alike.
# Rows go to $RESULTS ($BENCH_DIR/results.tsv, the peers' format; summarize.sh reads it) and a
# copy with the machine facts to bench/results/.
#
#   sudo bench/smtp-vs-peers.sh                       # setup + 3 rounds
#   SKIP_SETUP=1 ROUNDS=1 N_POSTLINE=3000 bench/smtp-vs-peers.sh
# Env: ROUNDS (3), N (20000, the peers' runs), N_POSTLINE (10000 per mode), SESSIONS (20),
#      DB (embedded|external), CLIENT (c), DELIVERING (0), FLOORS (0), POSTFIX_TLS (0), POSTLINE_ENTRY=dist, PEERS, BENCH_DIR (/tmp/mta-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
PEERS=${PEERS:-$(cd "$root/../shared/bench/peers" && pwd)}
# shellcheck source=/dev/null
source "$PEERS/common.sh"
ROUNDS=${ROUNDS:-3}
N_POSTLINE=${N_POSTLINE:-10000}
DB=${DB:-embedded}
CLIENT=${CLIENT:-c}
DELIVERING=${DELIVERING:-0}
FLOORS=${FLOORS:-0}
POSTFIX_TLS=${POSTFIX_TLS:-0}
label=D-postline-smtp
delivering=()
[[ $CLIENT == c ]] || label+="-$CLIENT"
if [[ $DELIVERING == 1 ]]; then label+=-delivering; delivering=(--delivering); fi
stamp=$(date -u +%Y%m%d-%H%M%S)
# shellcheck source=support/peers-session.sh
source "$here/support/peers-session.sh"

begin_peers_session "N=$N N_POSTLINE=$N_POSTLINE SIZE=$SIZE SESSIONS=$SESSIONS ROUNDS=$ROUNDS DB=$DB CLIENT=$CLIENT DELIVERING=$DELIVERING FLOORS=$FLOORS POSTFIX_TLS=$POSTFIX_TLS"
results_header
# The C generator is compiled by smtp-submission.ts on first use.
if [[ $CLIENT == c ]] && ! { command -v cc > /dev/null && [[ -f /usr/include/openssl/ssl.h ]]; }; then
  apt-get install -y -qq --no-install-recommends gcc libc6-dev libssl-dev > /dev/null
fi

submission_run() {         # submission_run <run#> <label> [smtp-submission.ts options…]
  local run=$1 name=$2
  shift 2
  (cd "$root" && node --import tsx "$here/smtp-submission.ts" --label "$name" --run "$run" --n "$N_POSTLINE" \
      --sessions "$SESSIONS" --per-connection 1,100 --client "$CLIENT" --results "$RESULTS" "$@") \
    > "$BENCH_DIR/$name-$run.log" 2>&1 || log "$name run $run failed: $(tail -3 "$BENCH_DIR/$name-$run.log")"
  grep -E '^\| [DE]-|^!' "$BENCH_DIR/$name-$run.log" >&2 || true
}

postline_run() {            # postline_run <run#>: Postline, then the floors when FLOORS=1, Postfix with TLS when POSTFIX_TLS=1
  submission_run "$1" "$label" --db "$DB" "${delivering[@]}"
  if [[ $FLOORS == 1 ]]; then
    for server in tls-floor smtp-server; do submission_run "$1" "D-floor-$server" --server "$server"; done
  fi
  if [[ $POSTFIX_TLS == 1 ]]; then submission_run "$1" E-postfix-tls --server postfix-tls; fi
}

for ((round = 1; round <= ROUNDS; round++)); do
  export RUNS=1 RUN_OFFSET=$((round - 1))
  log "round $round/$ROUNDS"
  wait_for_peers_idle; "$PEERS/scenario-a-sink.sh"
  if ((round % 2)); then
    wait_for_peers_idle; "$PEERS/scenario-b-postfix.sh"; postline_run "$round"
  else
    postline_run "$round"; wait_for_peers_idle; "$PEERS/scenario-b-postfix.sh"
  fi
done

"$PEERS/summarize.sh" | tee "$BENCH_DIR/summary.md"
# Postline vs Postfix's submit rate within each round (same minutes of the shared host), then the median.
python3 - "$RESULTS" "$label" <<'PY' | tee -a "$BENCH_DIR/summary.md"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter='\t') if r['status'] == 'ok']
submit = {(r['scenario'], r['run']): float(r['submit_per_s']) for r in rows}
targets = {f'{sys.argv[2]}-1': 1, f'{sys.argv[2]}-100': 2}
targets.update({name: None for name in sorted({r['scenario'] for r in rows if r['scenario'].startswith('D-floor-')})})
for name, target in targets.items():
    ratios, lines = [], []
    for run in sorted({r['run'] for r in rows}, key=int):
        d, b, a = submit.get((name, run)), submit.get(('B-postfix', run)), submit.get(('A-sink', run))
        if d and b:
            ratios.append(d / b)
            lines.append(f"| {run} | {d:.0f} | {b:.0f} | {d / b:.2f}× | {a:.0f} |" if a else f"| {run} | {d:.0f} | {b:.0f} | {d / b:.2f}× | |")
    if not ratios:
        continue
    print(f'\n| round | {name} submit/s | B-postfix submit/s | ÷ Postfix | A-sink submit/s |')
    print('|---|---|---|---|---|')
    print('\n'.join(lines))
    print(f"\nmedian {name} ÷ Postfix (submit, same round): {statistics.median(ratios):.2f}×" + (f" (target ≥ {target}×)" if target else " (a floor: no target)"))
# With POSTFIX_TLS=1: Postline against Postfix doing STARTTLS too, mode by mode.
for mode in ('1', '100'):
    name, tls = f'{sys.argv[2]}-{mode}', f'E-postfix-tls-{mode}'
    pairs = [(run, submit[(name, run)], submit[(tls, run)]) for run in sorted({r['run'] for r in rows}, key=int) if (name, run) in submit and (tls, run) in submit]
    if not pairs:
        continue
    print(f'\n| round | {name} submit/s | {tls} submit/s | ÷ Postfix with TLS |')
    print('|---|---|---|---|')
    for run, d, e in pairs:
        print(f'| {run} | {d:.0f} | {e:.0f} | {d / e:.2f}× |')
    print(f"\nmedian {name} ÷ {tls} (same round): {statistics.median([d / e for _, d, e in pairs]):.2f}×")
PY
mkdir -p "$here/results"
{ sed 's/^/# /' "$BENCH_DIR/machine.txt"; cat "$RESULTS"; } > "$here/results/smtp-vs-peers-$stamp.tsv"
log "rows: $RESULTS (copy: bench/results/smtp-vs-peers-$stamp.tsv)"
