import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { admin, listedCommands } from '../support/cli';
import { COMMANDS } from '../support/cli-mistakes';

describe('the help of every command', () => {
  it('is in docs/operators.md, as an operator types the command', async () => {
    const page = await readFile(new URL('../../docs/operators.md', import.meta.url), 'utf8');
    for (const command of await listedCommands())
      expect(page, command).toMatch(new RegExp(`npm run admin -- (--stage \\w+ )?${command}(?![\\w-])`));
  });

  it('marks the required options, shows examples and the global --json and --stage', async () => {
    for (const command of await listedCommands()) {
      const { code, stdout } = await admin(...command.split(' '), '--help');
      expect(code, command).toBe(0);
      const examples = stdout.split('\nExamples:\n')[1] ?? '';
      expect(examples, command).toMatch(
        new RegExp(`^ {2}npm run admin -- (--stage \\w+ )?${command}( |\n|$)`),
      );
      const globals = stdout.split('\nGlobal Options:\n')[1] ?? '';
      expect(globals, command).toContain('--json');
      expect(globals, command).toContain('--stage <stage>');
      // A missing required option is named as the help marks it.
      const options = stdout.replace(/\s+/g, ' ');
      for (const [, argv, , message] of COMMANDS[command] ?? []) {
        const required = typeof message === 'string' ? /required option '(--[a-z-]+) /.exec(message) : null;
        if (required && argv.join(' ').startsWith(command))
          expect(options, command).toMatch(
            new RegExp(`${required[1]} <[a-z]+> ((?! --[a-z]).)*\\(required\\)`),
          );
      }
    }
  });
});
