import { describe, it, expect } from 'vitest';
import { decodeEpc, normalizeEpcFilter } from '../../../server/events/uhf';
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
