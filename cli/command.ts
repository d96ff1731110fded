import type { Command } from 'commander';
import type { OperatorTarget } from '../operations/target';

/** Where the CLI writes: results to `out`, problems and notes to `err`. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * A mistake in how a command was called (an option missing or malformed, a bad row of a hosts
 * file): exit code 2, as for commander's own, and nothing was contacted or changed.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What a command hands back: the JSON of `--json`, the lines otherwise, and what to do after printing. */
interface CommandOutput {
  readonly json: unknown;
  readonly text: readonly string[];
  /** Runs once the result is printed (mail), so a failure there cannot hide the result. */
  readonly afterPrinting?: () => Promise<void>;
  /** The work was done, but what it reports is a failure a script must see: exit 1 after printing. */
  readonly failed?: boolean;
}

/** A command's options as commander parsed them (camel-cased names). */
export type Options = Readonly<Record<string, unknown>>;

/** The work of a command, once its options are checked: against the local server or a deployed stage. */
export type CommandRun = (target: OperatorTarget, io: CliIo) => Promise<CommandOutput>;

/**
 * A command in two steps. The action checks the options and arguments and throws a `UsageError`
 * for a mistake, before any target is resolved: a usage mistake exits 2 without a running server,
 * AWS credentials or a network. What it returns does the work.
 */
type CommandAction = (
  options: Options,
  args: readonly string[],
  /** What the global options ask for: `json`, the whole result on stdout (a command may read more for it). */
  globals: { readonly json: boolean },
) => CommandRun | Promise<CommandRun>;

interface CommandSpec {
  readonly summary: string;
  /** Command lines after `npm run admin --`, shown under "Examples:" in the command's --help. */
  readonly examples: readonly [string, ...string[]];
  readonly action: CommandAction;
}

/** Adds a sub-command to `parent` whose action runs through the CLI (`cli.ts`): output, exit code. */
export type Define = (parent: Command, name: string, spec: CommandSpec) => Command;

/** How operators call the CLI; help and messages quote it. */
export const ADMIN = 'npm run admin --';

/** The command as typed: `npm run admin -- keys rotate`. */
export function commandLine(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return [ADMIN, ...names].join(' ');
}

/**
 * A group of commands (`keys`, `links`...): a bare `npm run admin -- keys` shows its help. Its
 * `subject` says what the commands act on; `cli.ts` adds the list of its commands once they are
 * defined, so a new command is listed without an edit here.
 */
export function commandGroup(program: Command, name: string, subject: string): Command {
  const group = program.command(name).description(subject);
  return group.showHelpAfterError(`Try "${commandLine(group)} --help" for its commands.`);
}

/** The string value of an option, or '' when it was not given. */
export function text(options: Options, name: string): string {
  const value = options[name];
  return typeof value === 'string' ? value : '';
}

/** An ISO time as operators read it in a table: to the minute, in UTC. */
export function minuteOf(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** Rows under a header, in columns as wide as their widest cell (the last column is not padded). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  return [header, ...rows].map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  '),
  );
}
