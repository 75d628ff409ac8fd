// What the MTA makes of a claim (queue/claim.ts): SMTP transactions, one email to some of its
// recipients at one domain each.
import type { ClaimedDelivery, ClaimedEmail } from '../queue/claim.js';

/** One SMTP transaction's worth of work: one email to some recipients at one domain. */
export interface DeliveryJob {
  email: ClaimedEmail;
  domain: string;
  recipients: ClaimedDelivery[];
}

/** RFC 5321 §4.5.3.1.8: a server must accept at least 100 recipients per transaction. */
const MAX_RECIPIENTS_PER_TRANSACTION = 100;

/** Groups claimed rows into SMTP transactions: per email and recipient domain. */
export function groupIntoJobs(rows: ClaimedDelivery[]): DeliveryJob[] {
  const jobs = new Map<string, DeliveryJob[]>();
  for (const row of rows) {
    const key = `${row.email.id} ${row.domain}`;
    let list = jobs.get(key);
    if (!list) jobs.set(key, (list = []));
    let job = list[list.length - 1];
    if (!job || job.recipients.length >= MAX_RECIPIENTS_PER_TRANSACTION) {
      list.push((job = { email: row.email, domain: row.domain, recipients: [] }));
    }
    job.recipients.push(row);
  }
  return [...jobs.values()].flat();
}
