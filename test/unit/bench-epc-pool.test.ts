import { describe, expect, it } from 'vitest';
import { DISTINCT_TAG_POOL, epcHex } from '../../bench/epc-pool';
import { decodeEpc } from '../../server/events/uhf/epc';

describe('bench EPC pool', () => {
  it('gives SGTIN-96 EPCs that decode to the bench item with the serial asked for', () => {
    for (const serial of [0, 1, 6789, 65_536, DISTINCT_TAG_POOL - 1, 0xffff_ffff]) {
      const hex = epcHex(serial);
      expect(hex).toMatch(/^[0-9A-F]{24}$/);
      expect(decodeEpc(hex)).toBe(`urn:epc:id:sgtin:0614141.812345.${serial}`);
    }
  });

  it('gives a distinct EPC for every serial of the pool', () => {
    const seen = new Set<string>();
    for (let serial = 0; serial < DISTINCT_TAG_POOL; serial += 997) seen.add(epcHex(serial));
    expect(seen.size).toBe(Math.ceil(DISTINCT_TAG_POOL / 997));
  });

  it('refuses serials that do not fit the 32 bits the prefix leaves', () => {
    expect(() => epcHex(-1)).toThrow(RangeError);
    expect(() => epcHex(2 ** 32)).toThrow(RangeError);
    expect(() => epcHex(1.5)).toThrow(RangeError);
  });
});
