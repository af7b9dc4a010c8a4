/** Terminal output of the command-line tool: plain lines, a mark per check, exit codes scripts can use. */

export const EXIT = {
  ok: 0,
  /** A check failed, the sandbox refused, or the command could not do its work. */
  failed: 1,
  /** Wrong usage: an unknown command or option, a missing or malformed argument. */
  usage: 2,
} as const;

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckLine {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

export function formatCheck(line: CheckLine): string {
  return `${MARK[line.status]}  ${line.name}: ${line.detail}${line.fix === undefined ? '' : `\n      fix: ${line.fix}`}`;
}

/** An error the CLI reports in one line and exits with `exitCode`. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT.failed) {
    super(message);
  }
}
