// How a report's problems are written: a value from the report is quoted short (a reporter's
// 10 MB "source_ip" must not become a 10 MB problem), and the list is capped (a report of 100,000
// unreadable rows keeps the first problems and their count, not 100,000 lines).

const MAX_QUOTED = 64;
const MAX_PROBLEMS = 100;

/** `value` in quotes, cut to 64 characters. */
export const quoted = (value: unknown): string => {
  const s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(s.length > MAX_QUOTED ? `${s.slice(0, MAX_QUOTED)}…` : s);
};

/** The first 100 problems, and how many more there were. */
export function capped(problems: string[]): string[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_PROBLEMS - 1), `…and ${problems.length - MAX_PROBLEMS + 1} more problems`];
}
