import { runCli } from '../cli/cli';

/**
 * A stream that cannot be written (a full disk, a closed descriptor) is one line on stderr and
 * exit 1, never a stack; a reader that went away (`| head`) ends the output quietly.
 */
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return;
    process.exitCode = 1;
    if (stream === process.stderr) return;
    process.stderr.write(
      `Error: the output could not be written (${error.code ?? error.message}). What the command did is done; a list command shows it.\n`,
    );
  });
}

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
process.exitCode = Math.max(Number(process.exitCode ?? 0), code);
