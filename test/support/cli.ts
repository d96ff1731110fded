import { execFile } from 'node:child_process';
import { runCli } from '../../cli/cli';

/** Runs the operator CLI in-process (the code path of `npm run admin`), capturing its output. */
export async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** Runs a command with `--json` and parses its output; a non-zero exit fails with its stderr. */
export async function adminJson(...argv: string[]) {
  const result = await admin(...argv, '--json');
  if (result.code !== 0) throw new Error(`admin ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * `npm run admin -- …` as a process of its own, with `directory` as its local folder (the path an
 * operator's shell takes); killed after `timeoutMs`, which it reports as the code "timed out".
 */
export function adminProcess(
  directory: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<{ code: number | 'timed out'; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', ...args],
      { env: { ...process.env, PARTNER_API_LOCAL_DIR: directory }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        resolve({ code: error?.killed ? 'timed out' : code, stdout: stdout.trim(), stderr: stderr.trim() });
      },
    );
  });
}

/** The commands of the CLI, from its help: each group's commands, and the commands without a group. */
export async function listedCommands(): Promise<string[]> {
  const commandsOf = (help: string) =>
    (help.split(/\nCommands:\n/)[1] ?? '')
      .split('\n')
      .map((line) => /^ {2}([a-z-]+)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined && name !== 'help');
  const top = await admin('--help');
  const commands: string[] = [];
  for (const name of commandsOf(top.stdout)) {
    const group = await admin(name, '--help');
    const inside = commandsOf(group.stdout);
    commands.push(...(inside.length === 0 ? [name] : inside.map((command) => `${name} ${command}`)));
  }
  return commands;
}
