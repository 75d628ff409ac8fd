// A domain's warm-up on its page: day N of M, today's cap per mailbox provider and what each
// provider that received mail today may still receive, and which mail waits at the cap
// (GET /domains/:id `warmup`).
import type { Warmup } from '../api';
import { formatTime } from '../components';

export function DomainWarmup({ warmup }: { warmup: Warmup | null }) {
  return (
    <section aria-labelledby="domain-warmup-title">
      <h2 id="domain-warmup-title">Warm-up</h2>
      {!warmup && <p>Not warming up: this domain sends without daily caps.</p>}
      {warmup?.status === 'ended' && <p>Warm-up ended after day {warmup.days}: this domain sends without daily caps.</p>}
      {warmup?.status === 'warming_up' && (
        <>
          <p>
            Day {warmup.day} of {warmup.days}
            {warmup.custom_schedule ? ' (custom schedule)' : ''}: up to {warmup.per_provider_daily?.toLocaleString()} messages to each mailbox provider today.
            {warmup.cap_transactional
              ? ' Mail over it, transactional mail included, waits for the next day'
              : ' Bulk mail over it (broadcasts, and emails with List-Unsubscribe or Precedence: bulk) waits for the next day'}
            , which begins {formatTime(warmup.next_day_at!)}.{warmup.cap_transactional ? '' : ' Transactional mail always goes at once, and counts.'}
          </p>
          {warmup.today.length > 0 && (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Provider</th>
                    <th scope="col">Sent today</th>
                    <th scope="col">May still send today</th>
                  </tr>
                </thead>
                <tbody>
                  {warmup.today.map((p) => (
                    <tr key={p.provider}>
                      <td data-label="Provider">{p.provider}</td>
                      <td data-label="Sent today">{p.sent.toLocaleString()}</td>
                      <td data-label="May still send today">{p.remaining.toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p>Other providers may each still receive {warmup.per_provider_daily?.toLocaleString()} today; mail to other servers is not capped.</p>
        </>
      )}
    </section>
  );
}
