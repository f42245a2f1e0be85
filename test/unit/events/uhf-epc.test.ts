import { describe, it, expect } from 'vitest';
import { decodeEpc, epcUriFilter, normalizeEpcFilter, uriListsEpc } from '../../../server/events/uhf';
import { fixtureJson } from './helpers';

interface Vector {
  hex: string;
  uri: string;
}

const vectors = fixtureJson('readers/epc-vectors.json') as Vector[];

describe('decodeEpc', () => {
  it('has the shared vectors to check (guards against an empty fixture)', () => {
    expect(vectors).toHaveLength(7);
  });

  it.each(vectors)('decodes $hex to $uri', ({ hex, uri }) => {
    expect(decodeEpc(hex)).toBe(uri);
  });

  it('decodes the SPEC §5 vectors', () => {
    expect(decodeEpc('3074257BF7194E4000001A85')).toBe('urn:epc:id:sgtin:0614141.812345.6789');
    expect(decodeEpc('3174257BF4499602D2000000')).toBe('urn:epc:id:sscc:0614141.1234567890');
    expect(decodeEpc('3374257BF40C0E400000162E')).toBe('urn:epc:id:grai:0614141.12345.5678');
    expect(decodeEpc('3474257BF40000000000162E')).toBe('urn:epc:id:giai:0614141.5678');
  });

  it('is case-insensitive on input', () => {
    expect(decodeEpc('3074257bf7194e4000001a85')).toBe('urn:epc:id:sgtin:0614141.812345.6789');
  });

  it('turns a factory (non-GS1) EPC into the raw URI instead of failing', () => {
    expect(decodeEpc('e28011702000014cd9b5a08e')).toBe('urn:epc:raw:96.xE28011702000014CD9B5A08E');
  });

  it('gives the raw URI, with bits = 4 × hex digits, for EPCs epc-tds would misread', () => {
    // Too short: epc-tds would pad it with zeros and invent serial 0.
    expect(decodeEpc('3074257BF7194E40')).toBe('urn:epc:raw:64.x3074257BF7194E40');
    // Too long for SGTIN-96 with non-zero extra digits: epc-tds would ignore them.
    expect(decodeEpc('3074257BF7194E4000001A85FFFF')).toBe('urn:epc:raw:112.x3074257BF7194E4000001A85FFFF');
    // SGTIN-198 header but only 96 bits.
    expect(decodeEpc('3674257BF7194E4000001A85')).toBe('urn:epc:raw:96.x3674257BF7194E4000001A85');
    // Partition value 7 is undefined: epc-tds throws a TypeError.
    expect(decodeEpc('30FC257BF7194E4000001A85')).toBe('urn:epc:raw:96.x30FC257BF7194E4000001A85');
  });

  it('decodes a 198-bit SGTIN read as 208 bits (13 words), zero padding and all', () => {
    const sgtin198 = '3674257BF7194E60C286000000000000000000000000000000';
    expect(decodeEpc(sgtin198)).toBe('urn:epc:id:sgtin:0614141.812345.ABC');
    expect(decodeEpc(sgtin198 + '00')).toBe('urn:epc:id:sgtin:0614141.812345.ABC');
    // Padding beyond the word the EPC ends in, or non-zero padding, is not that EPC.
    expect(decodeEpc(sgtin198 + '0000')).toBe(`urn:epc:raw:216.x${sgtin198}0000`);
    expect(decodeEpc(sgtin198 + '01')).toBe(`urn:epc:raw:208.x${sgtin198}01`);
  });

  it('refuses padding after a 96-bit EPC, which already fills whole words', () => {
    expect(decodeEpc('3074257BF7194E4000001A850000')).toBe('urn:epc:raw:112.x3074257BF7194E4000001A850000');
  });

  it('never throws, even on input that is not hex', () => {
    expect(decodeEpc('')).toBe('urn:epc:raw:0.x');
    expect(decodeEpc('XYZ')).toBe('urn:epc:raw:12.xXYZ');
  });
});

describe('normalizeEpcFilter', () => {
  it('takes hex in any case and upper-cases it', () => {
    expect(normalizeEpcFilter('3074257bf7194e4000001a85')).toEqual({ epc: '3074257BF7194E4000001A85' });
  });

  it('takes a pure-identity URI as is', () => {
    expect(normalizeEpcFilter('urn:epc:id:sgtin:0614141.812345.6789')).toEqual({
      epcUri: 'urn:epc:id:sgtin:0614141.812345.6789',
    });
  });

  it('lower-cases the URN prefix and upper-cases a raw URI hex, as stored', () => {
    expect(normalizeEpcFilter('URN:EPC:id:sgtin:0614141.812345.6789')).toEqual({
      epcUri: 'urn:epc:id:sgtin:0614141.812345.6789',
    });
    expect(normalizeEpcFilter('URN:EPC:ID:SGTIN:0614141.812345.6789')).toEqual({
      epcUri: 'urn:epc:id:sgtin:0614141.812345.6789',
    });
    // The value keeps its case: a GIAI serial may hold letters.
    expect(normalizeEpcFilter('URN:EPC:ID:GIAI:0614141.Ab12')).toEqual({ epcUri: 'urn:epc:id:giai:0614141.Ab12' });
    expect(normalizeEpcFilter('urn:epc:RAW:96.xe28011702000014cd9b5a08e')).toEqual({
      epcUri: 'urn:epc:raw:96.xE28011702000014CD9B5A08E',
    });
    expect(normalizeEpcFilter('urn:epc:raw:96.xe28011702000014cd9b5a08e')).toEqual({
      epcUri: 'urn:epc:raw:96.xE28011702000014CD9B5A08E',
    });
  });

  it('returns null for anything else', () => {
    expect(normalizeEpcFilter('')).toBeNull();
    expect(normalizeEpcFilter('not-an-epc')).toBeNull();
    expect(normalizeEpcFilter('ABC')).toBeNull(); // odd length: no stored EPC can match
    expect(normalizeEpcFilter('urn:epc:')).toBeNull();
    expect(normalizeEpcFilter('urn:isbn:123')).toBeNull();
    expect(normalizeEpcFilter('urn:epc:id:sgtin:0614141 .812345')).toBeNull();
  });
});

describe('epcUriFilter and uriListsEpc (the URI filter finds most EPCs by their key)', () => {
  /** A deterministic stream of SGTIN-96 EPCs over every filter and partition value. */
  const sgtin96s = Array.from({ length: 5_000 }, (_, n) => {
    const word = (Math.imul(n + 1, 2654435761) >>> 0).toString(16).toUpperCase().padStart(8, '0');
    return `30${(n % 256).toString(16).toUpperCase().padStart(2, '0')}${word}${word}${word.slice(0, 4)}`;
  });
  const others = [
    ...vectors.map((vector) => vector.hex),
    'E2801160600002084E3B2F1F',
    // 12-digit company prefix field holding 40 bits' worth: 13 digits in the URI.
    '3003FFFFFFFFFFFFFFFFFFFF',
    '3674257BF7194E5B3770E40000000000000000000000000000',
    'AA',
  ];

  it('lists exactly the EPCs whose own URI lists them, and every URI finds its own EPC one way', () => {
    let listed = 0;
    for (const epc of [...sgtin96s, ...others]) {
      const uri = decodeEpc(epc);
      const { epcs } = epcUriFilter(uri);
      expect(uriListsEpc(epc, uri), epc).toBe(epcs.includes(epc));
      // Every listed EPC decodes to the URI that lists it.
      for (const other of epcs) expect(decodeEpc(other), other).toBe(uri);
      if (epcs.includes(epc)) listed += 1;
    }
    // Partition 7 (undefined) and fields past their digits (random bits often are) are left to the hash.
    expect(listed).toBeGreaterThan(sgtin96s.length / 2);
  });

  it('lists an SGTIN as its SGTIN-96 with each filter value, and a raw URI as its hex', () => {
    const { epcs } = epcUriFilter('urn:epc:id:sgtin:0614141.812345.6789');
    expect(epcs).toHaveLength(8);
    expect(epcs).toContain('3074257BF7194E4000001A85');
    expect(epcUriFilter('urn:epc:raw:96.xE2801160600002084E3B2F1F').epcs).toEqual(['E2801160600002084E3B2F1F']);
    expect(uriListsEpc('E2801160600002084E3B2F1F', 'urn:epc:raw:96.xE2801160600002084E3B2F1F')).toBe(true);
  });

  it('lists nothing where the URI does not name its EPCs one way, and says so for those EPCs', () => {
    // Other schemes, an SGTIN-198, an SGTIN no SGTIN-96 can hold, a raw URI with the wrong bits.
    for (const uri of [
      'urn:epc:id:sscc:0614141.1234567890',
      'urn:epc:id:sgtin:0614141.812345.ABC',
      'urn:epc:id:sgtin:0614141.812345.06789',
      'urn:epc:id:sgtin:0614141.81234.6789',
      'urn:epc:id:sgtin:0614141.812345.274877906944',
      'urn:epc:raw:64.xE2801160600002084E3B2F1F',
      'urn:epc:raw:4.xA',
    ])
      expect(epcUriFilter(uri).epcs, uri).toEqual([]);
    expect(uriListsEpc('3174257BF4499602D2000000', 'urn:epc:id:sscc:0614141.1234567890')).toBe(false);
    expect(uriListsEpc('3003FFFFFFFFFFFFFFFFFFFF', decodeEpc('3003FFFFFFFFFFFFFFFFFFFF'))).toBe(false);
    // A URI that is not the EPC's own is never said to list it.
    expect(uriListsEpc('3074257BF7194E4000001A85', 'urn:epc:id:sgtin:0614141.812345.6788')).toBe(false);
  });
});
