/** Where the CLI writes: results to `out`, problems and notes to `err`. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** A mistake in how a command was called (an option missing or malformed): exit code 2, as for commander's own. */
export class UsageError extends Error {}
