import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_FORMAT } from '../../lib/constructs/secure-defaults';

/** The fields of one access-log line (the keys of ACCESS_LOG_FORMAT). */
const formatFields = [...ACCESS_LOG_FORMAT.toString().matchAll(/"(\w+)":/g)].map((match) => match[1] ?? '');

/** The rows of "The access log's fields" in docs/deploying.md: field and what reads it. */
async function documentedFields(): Promise<{ field: string; reader: string }[]> {
  const page = await readFile(new URL('../../docs/deploying.md', import.meta.url), 'utf8');
  const section = page.split(/^### The access log's fields$/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  return [...section.matchAll(/^\| `(\w+)` \| (.*) \|$/gm)].map((row) => ({
    field: row[1] ?? '',
    reader: (row[2] ?? '').trim(),
  }));
}

describe('the access log writes only what something reads', () => {
  it('names, for each field it writes, what reads it (docs/deploying.md), and writes no other', async () => {
    const rows = await documentedFields();

    // Each field costs its bytes on every request (bench section 10): one nothing reads is not written.
    expect(formatFields.length).toBeGreaterThan(0);
    expect([...formatFields].sort()).toEqual(rows.map((row) => row.field).sort());
    for (const row of rows) expect(row.reader, row.field).not.toBe('');
  });
});
