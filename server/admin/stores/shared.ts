/** Small pieces every AdminStore adapter shares. */
import type { AdminJob, JobItemStatus, JobSummary } from '../store.js';

export function emptyCounts(): Record<JobItemStatus, number> {
  return { pending: 0, sent: 0, ok: 0, failed: 0 };
}

export function summarize(job: AdminJob): JobSummary {
  const counts = emptyCounts();
  for (const item of job.items) counts[item.status] += 1;
  const { items, ...rest } = job;
  return { ...rest, total: items.length, counts };
}

/** Reads a JSON column written by the adapter itself; anything else is an empty object. */
export function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
