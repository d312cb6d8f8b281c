/** The CLI's exit codes. Scripts depend on them; they are part of the public contract. */
export const ExitCode = {
  /** Everything ran and passed. */
  Success: 0,
  /** The work ran and something failed: a test case, a job. */
  Failure: 1,
  /** Invalid input, config or usage: nothing (or not everything) could run. */
  InvalidInput: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
