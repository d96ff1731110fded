import { describe, expect, it } from 'vitest';
import { csvRecords, HostFileError, linksCsv, parseHostFile } from '../../cli/host-file';

const options = { ttlSeconds: 3_600, nowMs: Date.parse('2026-11-22T10:00:00Z') };
const problemsOf = (text: string, defaultProducts?: string) => {
  try {
    parseHostFile(text, { ...options, ...(defaultProducts ? { defaultProducts } : {}) });
  } catch (error) {
    if (error instanceof HostFileError) return error.problems;
    throw error;
  }
  return [];
};

describe('CSV records of a hosts file (RFC 4180)', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF or LF, and skips blank lines', () => {
    expect(csvRecords('a,"b, c","say ""hi"""\r\n\r\n"multi\nline",x,\n')).toEqual([
      { line: 1, fields: ['a', 'b, c', 'say "hi"'] },
      { line: 3, fields: ['multi\nline', 'x', ''] },
    ]);
    expect(csvRecords('last,row')).toEqual([{ line: 1, fields: ['last', 'row'] }]);
  });

  it('refuses a quoted field that is never closed, naming its line', () => {
    expect(() => csvRecords('a,b\n"open,c\n')).toThrow(/line 2: a quoted field is not closed/);
    expect(() => csvRecords('a,b\r\n"two\r\nlines",c\r\nx,"open\r\n')).toThrow(
      /line 4: a quoted field is not closed/,
    );
  });

  it('numbers the lines after a quoted field that spans lines, whatever the line breaks', () => {
    for (const lineBreak of ['\n', '\r\n', '\r'])
      expect(
        csvRecords(['h,i', '"one', 'two', 'three",x', 'after,y', '', 'last,z'].join(lineBreak)),
        JSON.stringify(lineBreak),
      ).toEqual([
        { line: 1, fields: ['h', 'i'] },
        { line: 2, fields: [['one', 'two', 'three'].join(lineBreak), 'x'] },
        { line: 5, fields: ['after', 'y'] },
        { line: 7, fields: ['last', 'z'] },
      ]);
  });
});

describe('parseHostFile', () => {
  it('gives each row with its line, products from the row or the default', () => {
    const rows = parseHostFile(
      '\uFEFFEmail,Name,PMS_Hotel_ID,Products\none@h.example,One,P-1,"assistant,upsells"\ntwo@h.example,Two,P-2,\nthree@h.example,Three,P-3,upsells;guidebook\n',
      { ...options, defaultProducts: 'assistant' },
    );

    expect(rows).toEqual([
      { line: 2, email: 'one@h.example', name: 'One', pmsHotelId: 'P-1', products: ['assistant', 'upsells'] },
      { line: 3, email: 'two@h.example', name: 'Two', pmsHotelId: 'P-2', products: ['assistant'] },
      {
        line: 4,
        email: 'three@h.example',
        name: 'Three',
        pmsHotelId: 'P-3',
        products: ['upsells', 'guidebook'],
      },
    ]);
  });

  it('reports every problem of every row, by line and column', () => {
    expect(
      problemsOf(
        'email,name,pms_hotel_id\nbad,,P 1\nok@h.example,"Line\u2028break",P-2\nok2@h.example,Fine,P-2\n',
        'assistant',
      ),
    ).toEqual([
      'line 2, email: email "bad" is not an e-mail address.',
      'line 2, name: name must be 1-120 characters on one line.',
      expect.stringMatching(/^line 2, pms_hotel_id: --pms-hotel-id "P 1" is not valid/),
      'line 3, name: name must be 1-120 characters on one line.',
      'line 4, pms_hotel_id: "P-2" is on line 3 too; one link per hotel.',
    ]);
  });

  it('applies the activation page’s own claim rules to each row', () => {
    const problems = problemsOf(
      `email,name,pms_hotel_id,products\n${'a'.repeat(250)}@h.example,A,P-1,assistant\n`,
    );

    expect(problems.join('\n')).toMatch(/^line 2/);
  });

  it('names the line of a row after a name that spans lines', () => {
    for (const lineBreak of ['\n', '\r\n'])
      expect(
        problemsOf(
          ['email,name,pms_hotel_id', 'ok@h.example,"Two', 'lines",P-1', 'bad,Three,P-2', ''].join(lineBreak),
          'assistant',
        ),
      ).toEqual([
        'line 2, name: name must be 1-120 characters on one line.',
        'line 4, email: email "bad" is not an e-mail address.',
      ]);
  });

  it('refuses a file without rows, with unknown columns or with too many rows', () => {
    expect(problemsOf('')).toEqual([expect.stringMatching(/the file is empty/)]);
    expect(problemsOf('email,name\n')).toEqual([expect.stringMatching(/^line 1 must name the columns/)]);
    expect(problemsOf('email,name,pms_hotel_id,email\n')).toEqual([
      expect.stringMatching(/^line 1 must name/),
    ]);
    const many = Array.from({ length: 1_001 }, (_, index) => `h${index}@h.example,H,P-${index},assistant`);
    expect(problemsOf(`email,name,pms_hotel_id,products\n${many.join('\n')}\n`)).toEqual([
      'the file has 1001 rows; at most 1000 per file.',
    ]);
  });
});

describe('linksCsv', () => {
  const link = {
    line: 2,
    email: 'a@h.example',
    name: 'Inn',
    pms_hotel_id: 'P-1',
    products: ['assistant'],
    url: 'http://x/activate?token=a.b',
    expires_at: '2026-11-22T11:00:00.000Z',
    nonce: `-${'n'.repeat(21)}`,
  };

  it('puts an apostrophe before what a spreadsheet would run as a formula, in the operator’s cells only', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const [, row] = csvRecords(
        linksCsv([
          { ...link, name: `${start}SUM(A1)`, pms_hotel_id: `${start}1`, email: `${start}a@h.example` },
        ]),
      );
      expect(row?.fields, JSON.stringify(start)).toEqual([
        '2',
        `'${start}a@h.example`,
        `'${start}SUM(A1)`,
        `'${start}1`,
        'assistant',
        link.url,
        link.expires_at,
        link.nonce,
      ]);
    }
    expect(csvRecords(linksCsv([link]))[1]?.fields).toEqual([
      '2',
      'a@h.example',
      'Inn',
      'P-1',
      'assistant',
      link.url,
      link.expires_at,
      link.nonce,
    ]);
  });

  it('quotes what needs quoting, so the output reads back as it was written', () => {
    const csv = linksCsv([
      {
        line: 2,
        email: 'a@h.example',
        name: 'Casa "Verde", Lisboa',
        pms_hotel_id: 'P-1',
        products: ['assistant', 'upsells'],
        url: 'http://x/activate?token=a.b',
        expires_at: '2026-11-22T11:00:00.000Z',
        nonce: 'n'.repeat(22),
      },
    ]);

    expect(csvRecords(csv).map((record) => record.fields)).toEqual([
      ['line', 'email', 'name', 'pms_hotel_id', 'products', 'url', 'expires_at', 'nonce'],
      [
        '2',
        'a@h.example',
        'Casa "Verde", Lisboa',
        'P-1',
        'assistant,upsells',
        'http://x/activate?token=a.b',
        '2026-11-22T11:00:00.000Z',
        'n'.repeat(22),
      ],
    ]);
  });
});
