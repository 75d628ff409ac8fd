-- TLS reporting (RFC 8460) of what Postline sends: sessions counted per recipient policy domain
-- and UTC day (src/tls-policy/tls-report-counts.ts, each node adding its counts every few
-- seconds), and the daily reports made of them (src/tls-reports/), one per day and domain for
-- the whole cluster: the node whose INSERT claims the row sends it.
CREATE TABLE tls_report_counts (
  day date NOT NULL,
  -- The recipient domain (MTA-STS, or DANE for its MX hosts) and which policy.
  policy_domain text NOT NULL,
  policy_type text NOT NULL CHECK (policy_type IN ('sts', 'tlsa')),
  -- The policy's text, a line each (RFC 8460 §4.4 policy-string).
  policy_text text NOT NULL,
  -- 'success', or the RFC 8460 §4.3 result type of a failure.
  result text NOT NULL,
  receiving_mx text NOT NULL DEFAULT '',
  receiving_ip text NOT NULL DEFAULT '',
  sending_ip text NOT NULL DEFAULT '',
  sessions bigint NOT NULL,
  PRIMARY KEY (day, policy_domain, policy_type, policy_text, result, receiving_mx, receiving_ip, sending_ip)
);

CREATE TABLE tls_reports (
  day date NOT NULL,
  policy_domain text NOT NULL,
  report_id text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  -- Each rua address and what became of the report there: [{rua, ok, detail}].
  destinations jsonb NOT NULL DEFAULT '[]',
  -- Why nothing was sent (no _smtp._tls record, no reporting address configured), when so.
  skipped text,
  finished_at timestamptz,
  PRIMARY KEY (day, policy_domain)
);
