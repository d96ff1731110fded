import type { Command } from 'commander';
import { addSampleData } from '../../operations/partners';
import type { Define } from '../command';
import { commandGroup, text } from '../command';
import { partnerSlug } from '../inputs';

/** `sample-data add`: `addSampleData` of `operations/partners.ts` (and `sample-data.ts`). */
export function sampleDataCommands(program: Command, define: Define): void {
  const sampleData = commandGroup(program, 'sample-data', 'Sample data for a partner (local and sandbox)');
  define(sampleData, 'add', {
    summary:
      'Give a partner sample hosts, properties and five months of reservations (local and sandbox only)',
    examples: ['sample-data add --partner acme', '--stage sandbox sample-data add --partner acme --json'],
    action: (options) => {
      const slug = partnerSlug(text(options, 'partner'), '--partner');
      return async (target) => {
        const added = await addSampleData(target, slug, Date.now());
        return {
          json: added,
          text: [
            `Partner "${added.partner}" sponsors ${added.properties} sample properties with ${added.reservations} reservations.`,
          ],
        };
      };
    },
  }).requiredOption('--partner <slug>', 'the partner');
}
