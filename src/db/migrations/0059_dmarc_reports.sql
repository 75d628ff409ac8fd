-- Reports received about the domains Postline sends for (src/dmarc-reports/): DMARC aggregate
-- reports (RFC 7489 appendix C) and SMTP TLS reports (RFC 8460), mailed to the addresses the
-- recommended records name (dmarc-reports@ / tls-reports@ the domain's return-path host) or to
-- any address of a receiving domain. A report is attached to the account's domain its policy
-- domain names; what cannot be (another account's domain, no report in the message, a flood)
-- is kept in unrecognised_report_mail with the reason. `created_at` is when it was received.
-- Deleted after POSTLINE_REPORT_RETENTION by the worker's housekeeping.

CREATE TABLE dmarc_reports (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain_id       uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  reporter_org    text NOT NULL,
  reporter_email  text,
  -- lower(org) '|' lower(email): with report_id, what makes the same report sent twice one row.
  reporter_key    text NOT NULL,
  report_id       text NOT NULL,
  period_begin    timestamptz NOT NULL,
  period_end      timestamptz NOT NULL,
  -- policy_published: its domain and {p, sp, pct, adkim, aspf, np}; the schema it was read as.
  policy_domain   text NOT NULL,
  policy          jsonb NOT NULL,
  report_schema   text NOT NULL,
  -- Sums of the rows' counts: all messages, and those that passed DMARC (DKIM or SPF aligned pass).
  messages        bigint NOT NULL,
  passing         bigint NOT NULL,
  -- What the reader could not read in it, each with why.
  problems        jsonb NOT NULL DEFAULT '[]',
  -- The SMTP client that delivered the report, and the envelope sender.
  source_ip       text NOT NULL,
  mail_from       text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (domain_id, reporter_key, report_id)
);
-- GET /domains/:id/dmarc-reports: a domain's reports, newest first (the list's keyset).
CREATE INDEX dmarc_reports_domain_created ON dmarc_reports (domain_id, created_at, id);
-- Retention.
CREATE INDEX dmarc_reports_created ON dmarc_reports (created_at);

-- A report's rows (record elements): one source IP's messages and how they fared. account_id,
-- domain_id and period_begin are the report's, repeated so that GET /domains/:id/dmarc-sources
-- sums a period from this index alone.
CREATE TABLE dmarc_report_rows (
  report_id      uuid NOT NULL REFERENCES dmarc_reports (id) ON DELETE CASCADE,
  position       integer NOT NULL,
  account_id     uuid NOT NULL,
  domain_id      uuid NOT NULL,
  period_begin   timestamptz NOT NULL,
  source_ip      text NOT NULL,
  count          bigint NOT NULL,
  disposition    text,
  dkim_aligned   text,
  spf_aligned    text,
  header_from    text,
  envelope_from  text,
  envelope_to    text,
  -- {dkim: [{domain, selector, result}], spf: [{domain, scope, result}], overrides: [{type, comment}]}
  auth_results   jsonb NOT NULL,
  PRIMARY KEY (report_id, position)
);
CREATE INDEX dmarc_report_rows_domain_period ON dmarc_report_rows (domain_id, period_begin)
  INCLUDE (account_id, source_ip, count, dkim_aligned, spf_aligned);

-- SMTP TLS reports received (tls_reports holds those Postline sends): one row per report and
-- policy domain of the account's.
CREATE TABLE received_tls_reports (
  id                   uuid PRIMARY KEY,
  account_id           uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain_id            uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  reporter_org         text NOT NULL,
  contact              text,
  reporter_key         text NOT NULL,
  report_id            text NOT NULL,
  period_begin         timestamptz NOT NULL,
  period_end           timestamptz NOT NULL,
  successful_sessions  bigint NOT NULL,
  failed_sessions      bigint NOT NULL,
  -- [{policy_type, policy_domain, mx_hosts, successful_sessions, failed_sessions, failures: [{result_type,
  --   sending_mta_ip, receiving_mx_hostname, receiving_ip, failed_sessions, failure_reason}]}]
  policies             jsonb NOT NULL,
  problems             jsonb NOT NULL DEFAULT '[]',
  source_ip            text NOT NULL,
  mail_from            text NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (domain_id, reporter_key, report_id)
);
CREATE INDEX received_tls_reports_domain_created ON received_tls_reports (domain_id, created_at, id);
CREATE INDEX received_tls_reports_created ON received_tls_reports (created_at);

-- Report mail that attached no report: for a domain the account does not own, a message with
-- no readable report in it, or one over the hourly limit of its sender (refused).
CREATE TABLE unrecognised_report_mail (
  id             bigserial PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  recipient      text NOT NULL,
  reason         text NOT NULL,
  -- What is known of the report, if one was read: dmarc | tls, its reporter, id and policy domain.
  kind           text,
  reporter       text,
  report_id      text,
  policy_domain  text,
  source_ip      text NOT NULL,
  mail_from      text NOT NULL,
  received_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX unrecognised_report_mail_account ON unrecognised_report_mail (account_id, received_at);
CREATE INDEX unrecognised_report_mail_received ON unrecognised_report_mail (received_at);

-- The flood limit: reports taken per account and sender (`ip:<address>`, `from:<reporter domain>`)
-- in each hour, one UPSERT per key and message; hours past are deleted with the reports' retention.
CREATE TABLE report_intake (
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  sender      text NOT NULL,
  hour        timestamptz NOT NULL,
  reports     integer NOT NULL,
  PRIMARY KEY (account_id, sender, hour)
);
