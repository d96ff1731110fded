import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/cli';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import type { TestPartner } from '../support/partners';
import { approvedPartner, sponsoredProperty } from '../support/partners';
import { importArguments, importFolder, importInProcess, storedItemsOf } from '../support/reservation-import';

let partner: TestPartner;
const { folder, writeRows } = importFolder();

beforeAll(async () => {
  partner = await approvedPartner();
});

describe('reading the import file', () => {
  it('refuses a file over the size limit from its size alone, without reading it', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const file = join(folder(), 'huge.json');
    // A sparse 3 GiB file: no disk space, far over 50 MB, and more than one string can hold: read whole, it fails.
    const handle = await open(file, 'w');
    await handle.truncate(3 * 1024 ** 3);
    await handle.close();

    const started = Date.now();
    const result = await importInProcess(propertyId, file);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is larger than 50 MB');
    expect(result.stderr).toContain('split it into several files');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await storedItemsOf(propertyId)).toEqual([]);
  });

  it('accepts a file that starts with a UTF-8 byte order mark', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const day = Math.floor(Date.now() / DAY_MS) - 3;
    const row: Reservation = {
      id: 'bom',
      property_id: propertyId,
      channel: 'Direct',
      booked_at: new Date(day * DAY_MS).toISOString(),
      check_in: isoDate(day + 5),
      check_out: isoDate(day + 7),
      status: 'confirmed',
    };

    const result = await importInProcess(propertyId, await writeRows([row], '\uFEFF'));

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ published: 1, unchanged: 0, applied: true });
  });
});

describe('files named on the command line', () => {
  it('reads a relative --file from the folder npm was started in (INIT_CWD), not the package folder', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const row: Reservation = {
      id: 'relative-1',
      property_id: propertyId,
      channel: 'Direct',
      booked_at: new Date(Date.now() - DAY_MS).toISOString(),
      check_in: isoDate(Math.floor(Date.now() / DAY_MS) + 3),
      check_out: isoDate(Math.floor(Date.now() / DAY_MS) + 5),
      status: 'confirmed',
    };
    await writeFile(join(folder(), 'from-my-folder.json'), JSON.stringify([row]));
    const previous = process.env.INIT_CWD;
    process.env.INIT_CWD = folder();
    const out: string[] = [];
    const err: string[] = [];
    try {
      const code = await runCli(importArguments(propertyId, 'from-my-folder.json', '--json'), {
        out: (text) => out.push(text),
        err: (text) => err.push(text),
      });

      expect(code, err.join('\n')).toBe(0);
      expect(JSON.parse(out.join(''))).toMatchObject({ published: 1 });
    } finally {
      if (previous === undefined) delete process.env.INIT_CWD;
      else process.env.INIT_CWD = previous;
    }
  });
});
