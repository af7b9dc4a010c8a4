/**
 * What a scenario reports: how many runs it made, which invariants it checked and how often each
 * failed, orders lost and double charges. `npm run reliability` prints these as a table and
 * writes them to test-results/reliability.json.
 */
import type { SizeName } from './sizes.js';

export interface CheckResult {
  /** The invariant, as a sentence ("every order ends in the ledger's state"). */
  name: string;
  /** How many items it was checked on. */
  tried: number;
  failed: number;
  /** A few failing items, for the report. */
  examples: string[];
}

export interface ScenarioResult {
  id: string;
  title: string;
  size: SizeName;
  /** What was tried, in one or two sentences. */
  tried: string;
  /** Paragraphs after it: what was found and why the scenario is built as it is (optional). */
  notes?: string[];
  runs: number;
  failures: number;
  ordersLost: number;
  doubleCharges: number;
  durationMs: number;
  /** Why the scenario did not run (a missing database), or null. */
  skipped: string | null;
  checks: CheckResult[];
  figures: Record<string, number>;
}

const MAX_EXAMPLES = 5;

export class Report {
  readonly #started = Date.now();
  readonly #checks: CheckResult[] = [];
  readonly figures: Record<string, number> = {};
  runs = 0;
  ordersLost = 0;
  doubleCharges = 0;
  tried = '';
  notes: string[] = [];
  #skipped: string | null = null;

  constructor(
    readonly id: string,
    readonly title: string,
    readonly size: SizeName,
  ) {}

  /** Records one invariant over `tried` items; `failures` names the items it failed on. */
  check(name: string, tried: number, failures: readonly string[]): void {
    this.#checks.push({ name, tried, failed: failures.length, examples: failures.slice(0, MAX_EXAMPLES).map((f) => f.slice(0, 300)) });
  }

  skip(reason: string): void {
    this.#skipped = reason;
  }

  figure(name: string, value: number): void {
    this.figures[name] = value;
  }

  finish(): ScenarioResult {
    return {
      id: this.id,
      title: this.title,
      size: this.size,
      tried: this.tried,
      ...(this.notes.length > 0 ? { notes: this.notes } : {}),
      runs: this.runs,
      failures: this.#checks.reduce((sum, c) => sum + c.failed, 0),
      ordersLost: this.ordersLost,
      doubleCharges: this.doubleCharges,
      durationMs: Date.now() - this.#started,
      skipped: this.#skipped,
      checks: this.#checks,
      figures: this.figures,
    };
  }
}

/** One line per failed check, for assertion messages. */
export function describeFailures(result: ScenarioResult): string {
  return result.checks
    .filter((c) => c.failed > 0)
    .map((c) => `${c.name}: ${c.failed}/${c.tried} failed, e.g. ${c.examples.join(' | ')}`)
    .join('\n');
}
