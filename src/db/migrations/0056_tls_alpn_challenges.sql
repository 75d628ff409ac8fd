-- tls-alpn-01 challenges (POSTLINE_ACME_CHALLENGE) beside http-01 ones: a node's tls-alpn-01
-- responder finds the challenge by the host name a CA's handshake asks for and makes the
-- certificate from its key authorization, so nothing secret is stored. Rows written before
-- this are http-01 challenges.
ALTER TABLE acme_challenges ADD COLUMN type text NOT NULL DEFAULT 'http-01' CHECK (type IN ('http-01', 'tls-alpn-01'));
ALTER TABLE acme_challenges ADD COLUMN hostname text;
CREATE INDEX acme_challenges_tls_alpn ON acme_challenges (hostname) WHERE type = 'tls-alpn-01';
