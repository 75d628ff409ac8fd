#!/usr/bin/env bash
# Postfix as the peers run it (../shared/bench/peers/postfix-ctl.sh: queue with fsync, relay to
# smtp-sink), plus STARTTLS, so that a run of bench/smtp-submission.ts --server postfix-tls
# prices the TLS handshake on Postfix's side too: the peers' scenario B speaks plain SMTP,
# while Postline's submission always does STARTTLS (and AUTH, which this Postfix has no SASL
# for: the generator leaves it out). The certificate is ECDSA P-256, as Postline's own.
#
#   bench/support/postfix-tls.sh start    # Postfix on 127.0.0.1:$POSTFIX_PORT, smtp-sink on $SINK_PORT
#   bench/support/postfix-tls.sh stop
# Needs root and the peers' setup (../shared/bench/peers/setup.sh). The next postfix-ctl.sh
# start writes the peers' plain configuration again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PEERS=${PEERS:-$(cd "$here/../../../shared/bench/peers" && pwd)}
# shellcheck source=/dev/null
source "$PEERS/common.sh"
dir=$BENCH_DIR/postfix-tls
sink_pid_file=$dir/sink.pid

start() {
  mkdir -p "$dir"
  if [[ ! -f $dir/cert.pem ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
      -subj /CN=mta-bench.localdomain -keyout "$dir/key.pem" -out "$dir/cert.pem" 2> /dev/null
  fi
  "$PEERS/postfix-ctl.sh" stop > /dev/null 2>&1 || true
  "$PEERS/postfix-ctl.sh" configure > /dev/null
  postconf -e smtpd_tls_security_level=may "smtpd_tls_cert_file=$dir/cert.pem" "smtpd_tls_key_file=$dir/key.pem"
  sink_start postfix-tls
  echo "$SINK_PID" > "$sink_pid_file"
  postsuper -d ALL > /dev/null 2>&1 || true
  wait_port_free "$POSTFIX_PORT" 30
  postfix start 2> /dev/null
  wait_port "$POSTFIX_PORT" 30
}

stop() {
  "$PEERS/postfix-ctl.sh" stop > /dev/null 2>&1 || true
  if [[ -f $sink_pid_file ]]; then
    kill "$(cat "$sink_pid_file")" 2> /dev/null || true
    rm -f "$sink_pid_file"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
