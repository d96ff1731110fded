import { runCli } from '../../lib/cli/cli';

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
