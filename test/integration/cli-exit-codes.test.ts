import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, listedCommands } from '../support/cli';
import { COMMANDS } from '../support/cli-mistakes';

let folder = '';
let reservations = '';
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'cli-exit-codes-'));
  reservations = join(folder, 'reservations.json');
  await writeFile(reservations, '[]');
});
afterAll(() => rm(folder, { recursive: true, force: true }));

const CASES = Object.entries(COMMANDS).flatMap(([command, cases]) =>
  cases.map(([what, argv, code, message]) => ({ command, what, argv, code, message })),
);

describe('the CLI exit codes', () => {
  it.each(CASES)('$command, $what: exits $code', async ({ argv, code, message }) => {
    const args = argv.map((arg) => (arg === '<reservations>' ? reservations : arg));

    const result = await admin(...args);

    expect(result.code, result.stderr).toBe(code);
    expect(result.stdout).toBe('');
    if (typeof message === 'string') expect(result.stderr).toContain(message);
    else expect(result.stderr).toMatch(message);
    const lines = result.stderr.split('\n');
    if (code === 2) {
      // One line of reason, then where help is: the command's own, or the CLI's.
      expect(lines).toEqual([
        expect.stringMatching(/^Usage error: \S/),
        expect.stringMatching(/^Try "npm run admin -- [a-z -]*--help"/),
      ]);
    } else {
      expect(lines[0]).toMatch(/^Error: \S/);
      expect(result.stderr).not.toContain('Usage error');
    }
  });

  it('covers every command the CLI has', async () => {
    const commands = await listedCommands();
    expect(commands.length).toBeGreaterThan(15);
    expect(
      Object.keys(COMMANDS)
        .filter((command) => command !== '(any command)')
        .sort(),
    ).toEqual(commands.sort());
  });

  it.each([
    ['0 for done', ['partners', 'list', '--json'], 0],
    ['1 for a refusal', ['partners', 'show', 'no-such-partner'], 1],
    ['2 for a usage mistake', ['partners', 'show', 'Not A Slug'], 2],
  ])('is the exit code of the process, as the shell sees it: %s', async (_, argv, code) => {
    const exit = await new Promise<number>((resolve) =>
      execFile(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...argv], (error) =>
        resolve(error ? Number((error as { code?: unknown }).code) : 0),
      ),
    );
    expect(exit).toBe(code);
  });
});
