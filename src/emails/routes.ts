// The /emails routes, one file per operation, for server.ts to mount. The accept pipeline's
// dependencies (its group committer) are made here, once per process, and shared with SMTP
// submission (server.ts passes the same ones to both).
// Attachment downloads (/downloads/attachments/:id) and shared emails' pages (/shared/emails/:id)
// are served here too, without an API key.
import type { Route } from '../api/route.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { DnsResolver } from '../dns/resolver.js';
import { listDeliveryAttempts } from '../delivery/list-attempts.js';
import { DestinationPolicy } from '../egress/destination-policy.js';
import { signers } from '../signed-urls/url-signing.js';
import type { AcceptDeps } from './accept.js';
import { downloadAttachment } from './download-attachment.js';
import { getAttachment } from './get-attachment.js';
import { listAttachments } from './list-attachments.js';
import { cancelEmail } from './cancel-email.js';
import { getEmail } from './get-email.js';
import { getEmailMetrics } from './get-email-metrics.js';
import { getRawEmail } from './get-raw-email.js';
import { GroupCommitter } from './group-commit.js';
import { listEmailEvents } from './list-email-events.js';
import { listEmails } from './list-emails.js';
import { sendBatchEmails } from './send-batch-emails.js';
import { sendEmail } from './send-email.js';
import { shareEmail, sharedEmailRoutes } from './share-email.js';
import { updateEmail } from './update-email.js';
import { recordTargets } from '../domains/dns-records.js';

type EmailConfig = Pick<Config, 'publicUrl' | 'downloadUrlTtlMs' | 'attachmentFetchAllowPrivate' | 'attachmentFetchTimeoutMs' | 'sandbox' | 'smtpHostname'>;

/** The accept pipeline's dependencies, made once per process and shared by the API and SMTP submission. */
export function acceptDeps(db: Db, config: EmailConfig, dns: DnsResolver): AcceptDeps {
  const signer = signers(db);
  const { publicUrl } = config;
  return {
    db,
    committer: new GroupCommitter(db),
    attachmentFetch: {
      destinations: new DestinationPolicy(config.attachmentFetchAllowPrivate, (host) => dns.addresses(host)),
      timeoutMs: config.attachmentFetchTimeoutMs,
    },
    tracking: async () => ({ publicUrl, open: await signer('open-tracking'), click: await signer('click-tracking') }),
    sandbox: config.sandbox ? { db, hosts: recordTargets(config) } : undefined,
  };
}

export function emailRoutes(db: Db, config: EmailConfig, dns: DnsResolver, accept = acceptDeps(db, config, dns)): Route[] {
  const signer = signers(db);
  const { publicUrl } = config;
  const links = async () => ({ publicUrl, signer: await signer('attachment-download'), ttlMs: config.downloadUrlTtlMs });
  return [
    sendEmail(accept),
    sendBatchEmails(accept),
    listEmails(db),
    getEmailMetrics(db),
    getEmail(db),
    listEmailEvents(db),
    listDeliveryAttempts(db),
    getRawEmail(db),
    updateEmail(db),
    cancelEmail(db),
    listAttachments(db, links),
    getAttachment(db, links),
    downloadAttachment(db, () => signer('attachment-download')),
    shareEmail(db, async () => ({ publicUrl, signer: await signer('email-share') })),
    ...sharedEmailRoutes(db, () => signer('email-share')),
  ];
}
