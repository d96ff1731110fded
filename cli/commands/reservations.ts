import type { Command } from 'commander';
import { MAX_UNITS } from '../../core/domain/properties';
import { EVENTS_WAIT_SECONDS, eventsApplied } from '../../operations/events';
import { importReservationFile } from '../../operations/reservations';
import type { Define } from '../command';
import { commandGroup, text } from '../command';
import { inputFile, integerInRange } from '../inputs';

/** `reservations import`: what `operations/reservations.ts` does, as a command. */
export function reservationCommands(program: Command, define: Define): void {
  const reservations = commandGroup(program, 'reservations', "Properties' reservations");
  define(reservations, 'import', {
    summary: "Import a property's reservations from a JSON array, as events (idempotent by id)",
    examples: [
      'reservations import --property 2 --file reservations.json',
      'reservations import --property 2 --file reservations.json --units 4 --wait --json',
    ],
    action: (options) => {
      const propertyId = integerInRange('--property', text(options, 'property'), 1, Number.MAX_SAFE_INTEGER);
      const units =
        typeof options.units === 'string'
          ? integerInRange('--units', options.units, 1, MAX_UNITS)
          : undefined;
      // The values first, the file last: it is the one check that looks at the disk.
      const file = inputFile('--file', text(options, 'file'), 'the path of a JSON file of reservations');
      const request = { propertyId, file, units };
      const wait = options.wait === true;
      // The file is read and checked against the property when the target is known.
      return async (target) => {
        const result = await importReservationFile(target, request, Date.now());
        const text = [
          `Sent ${result.published} changed reservation(s) as events; ${result.unchanged} unchanged.`,
        ];
        if (!wait) {
          if (result.published > 0)
            text.push(
              'They apply within seconds; any the service refuses are listed by: npm run admin -- events failed',
            );
          return { json: result, text };
        }
        const applied = await eventsApplied(EVENTS_WAIT_SECONDS * 1000);
        text.push(
          applied
            ? 'Applied (the queue is empty); any the service refused are listed by: npm run admin -- events failed'
            : `Still applying after ${EVENTS_WAIT_SECONDS} s; npm run admin -- events failed lists any refused.`,
        );
        return { json: { ...result, applied }, text };
      };
    },
  })
    .requiredOption('--property <id>', 'the property id (from partners show)')
    .requiredOption('--file <path>', 'a JSON array of reservations')
    .option('--units <count>', `rentable units of the property (1-${MAX_UNITS})`)
    .option('--wait', `wait until the events are applied (at most ${EVENTS_WAIT_SECONDS} s)`);
}
