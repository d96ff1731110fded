import type { Option } from 'commander';
import { Command, CommanderError, Option as CommandOption, Help } from 'commander';
import { quoted, withoutControlCharacters, withUnsafeEscaped } from '../core/domain/text';
import { isDeployedStage, STAGES } from '../core/stages';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import type { CliIo, Define } from './command';
import { ADMIN, commandLine, text, UsageError } from './command';
import { auditCommands } from './commands/audit';
import { catalogCommands } from './commands/catalog';
import { dataCommands } from './commands/data';
import { eventCommands } from './commands/events';
import { keyCommands } from './commands/keys';
import { linkCommands } from './commands/links';
import { partnerCommands } from './commands/partners';
import { reservationCommands } from './commands/reservations';
import { sampleDataCommands } from './commands/sample-data';
import { trafficCommands } from './commands/traffic';
import { deployedTarget } from './deployed-target';
import { localTarget } from './local-target';

/**
 * The operator CLI: global options, exit codes, and one module per command group under
 * `commands/` (as `operations` is divided). Exit codes, as operators know them:
 *   0  done;
 *   1  refused or failed (an unknown partner, a key already revoked, no local server, AWS refusing);
 *   2  a usage mistake (an unknown command or option, a missing or malformed value): nothing was
 *      contacted or changed, and stderr has one line starting "Usage error:" with the reason.
 */
const USAGE_PREFIX = 'Usage error: ';
/** The `code` of a CommanderError raised for one of our usage mistakes. */
const USAGE_CODE = 'partner-api.usage';

async function resolveTarget(stage: string, io: CliIo): Promise<OperatorTarget> {
  if (isDeployedStage(stage)) return deployedTarget(stage);
  return localTarget((notice) => io.err(notice));
}

/**
 * What reaches the terminal, on either stream: names from the table, values from a file or an
 * argument, a parser's message quoting its input. No control character gets through, so nothing
 * can move the cursor, rewrite a line or reorder text; line breaks between lines stay.
 */
function terminalSafe(terminal: CliIo): CliIo {
  const clean = (text: string) =>
    text
      .split('\n')
      .map((line) => withoutControlCharacters(line, '?'))
      .join('\n');
  return { out: (text) => terminal.out(clean(text)), err: (text) => terminal.err(clean(text)) };
}

/** An operation that failed without saying why in our words (AWS refusing, a network): bounded, no stack. */
function unexpected(thrown: unknown, io: CliIo): void {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  const reason =
    error.name === 'CredentialsProviderError'
      ? ' (no AWS credentials: configure them, e.g. AWS_PROFILE)'
      : '';
  const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
  io.err(`Error: ${name}${quoted(error.message, 300)}${reason}`);
  io.err('The command stopped there. Run it again with DEBUG=1 for details.');
  if (process.env.DEBUG) io.err(String(error.stack));
}

type TargetOf = (stage: string, io: CliIo) => Promise<OperatorTarget>;

function buildProgram(io: CliIo, targetOf: TargetOf, failed: () => void): Command {
  const program = new Command(ADMIN)
    .description(
      'Operator CLI for the partner API. Acts on the local server (npm start) by default; --stage sandbox|production acts on a deployed stage with your AWS credentials. Exit codes: 0 done, 1 refused or failed, 2 usage mistake.',
    )
    .addOption(
      new CommandOption('--stage <stage>', 'where to act: the local server, or a deployed stage')
        .choices(STAGES)
        .default('local'),
    )
    .option('--json', 'print the result as one JSON object on stdout (messages stay on stderr)', false)
    .showHelpAfterError(`Try "${ADMIN} --help" for the commands.`)
    .exitOverride()
    .configureHelp({
      showGlobalOptions: true,
      optionDescription(this: Help, option: Option) {
        const description = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `${description} (required)` : description;
      },
    })
    .configureOutput({
      writeOut: (output) => io.out(output.trimEnd()),
      writeErr: (output) => io.err(output.trimEnd()),
      // Commander's own mistakes and ours read alike: one prefix, one line of reason (with its
      // "(Did you mean partners?)" on that line).
      outputError: (message, write) =>
        write(`${USAGE_PREFIX}${message.replace(/^error: /, '').replace(/\n(?=\()/g, ' ')}`),
    });

  const define: Define = (parent, name, spec) => {
    const command = parent.command(name).description(spec.summary);
    return command
      .showHelpAfterError(`Try "${commandLine(command)} --help".`)
      .addHelpText(
        'after',
        `\nExamples:\n${spec.examples.map((example) => `  ${ADMIN} ${example}`).join('\n')}`,
      )
      .action(async (...received: unknown[]) => {
        const args = received.slice(0, -2).map(String);
        const options = command.opts();
        const globals = command.optsWithGlobals();
        // A usage mistake goes the way of commander's own (exit 2); anything else is a failure (exit 1).
        const report = (error: unknown) => {
          if (error instanceof UsageError) command.error(error.message, { exitCode: 2, code: USAGE_CODE });
          failed();
          if (error instanceof OperatorError) io.err(`Error: ${error.message}`);
          else unexpected(error, io);
        };
        try {
          // Options are checked before any target is resolved: a mistake needs no server or AWS.
          const run = await spec.action(options, args, { json: globals.json === true });
          const target = await targetOf(text(globals, 'stage'), io);
          const { json, text: lines, afterPrinting, failed: reportsFailure } = await run(target, io);
          // JSON keeps its data: what the terminal must not see is written as a \u escape.
          io.out(globals.json === true ? withUnsafeEscaped(JSON.stringify(json)) : lines.join('\n'));
          if (reportsFailure) failed();
          await afterPrinting?.();
        } catch (error) {
          report(error);
        }
      });
  };

  partnerCommands(program, define);
  keyCommands(program, define);
  linkCommands(program, define);
  sampleDataCommands(program, define);
  catalogCommands(program, define);
  auditCommands(program, define);
  reservationCommands(program, define);
  eventCommands(program, define);
  trafficCommands(program, define);
  dataCommands(program, define);
  // A group's description ends with its commands, in the order they are defined.
  for (const group of program.commands)
    if (group.commands.length > 0)
      group.description(
        `${group.description()}: ${group.commands.map((command) => command.name()).join(', ')}`,
      );
  return program;
}

/**
 * Runs one CLI invocation and returns its exit code: 0, 1 for a refusal or failure, 2 for a usage
 * mistake. `target` replaces how `--stage` is resolved (tests give a target with a mailer of their own).
 */
export async function runCli(
  argv: readonly string[],
  terminal: CliIo,
  { target = resolveTarget }: { target?: TargetOf } = {},
): Promise<number> {
  let exitCode = 0;
  const io = terminalSafe(terminal);
  const program = buildProgram(io, target, () => {
    exitCode = 1;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help, and a group named without a command (its help), exit 0; every parse error is a usage mistake.
    return ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code) ? 0 : 2;
  }
}
