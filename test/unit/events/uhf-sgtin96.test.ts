import tds from 'epc-tds';
import { describe, expect, it } from 'vitest';
import { sgtin96Epcs, sgtin96FieldsFit, sgtin96Uri } from '../../../server/events/uhf/sgtin96';

/** A deterministic stream of pseudo-random hex digits (the same cases every run). */
function* randomHex(seed: number): Generator<string> {
  let state = seed;
  for (;;) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    yield '0123456789ABCDEF'[state >>> 28] ?? '0';
  }
}

const digits = randomHex(37);
const sgtin96 = () => `30${Array.from({ length: 22 }, () => digits.next().value).join('')}`;

/** What `epc-tds` (the reference) makes of the same EPC, or undefined when it refuses it. */
function reference(hex: string): string | undefined {
  try {
    return tds.valueOf(hex).toIdURI();
  } catch {
    return undefined;
  }
}

describe('sgtin96Uri (decoding without BigInt)', () => {
  it('agrees with epc-tds on 20,000 SGTIN-96 EPCs across every partition and the field extremes', () => {
    const cases = Array.from({ length: 20_000 }, sgtin96);
    // Every partition value with every other field all zeros, and all ones. The byte after the
    // header holds filter (3 bits), partition (3) and the top 2 bits of the company prefix.
    const byte = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
    for (let partition = 0; partition < 8; partition++) {
      cases.push(
        `30${byte(partition << 2)}${'0'.repeat(20)}`,
        `30${byte((7 << 5) | (partition << 2) | 3)}${'F'.repeat(20)}`,
      );
    }
    const partitionOf = (hex: string) => (parseInt(hex.slice(2, 4), 16) >> 2) & 7;
    let decoded = 0;
    for (const hex of cases) {
      const expected = reference(hex);
      const actual = sgtin96Uri(hex);
      if (actual !== undefined) {
        decoded += 1;
        expect(actual, hex).toBe(expected);
      } else {
        // The one SGTIN-96 it leaves to epc-tds: partition 7, which the standard does not define.
        expect(partitionOf(hex), hex).toBe(7);
      }
    }
    // Partition 7 (1 in 8) is the only SGTIN-96 it declines.
    expect(decoded).toBeGreaterThan(cases.length * 0.8);
  });

  it('declines other schemes, lengths and lower-case input', () => {
    expect(sgtin96Uri('3174257BF4499602D2000000')).toBeUndefined();
    expect(sgtin96Uri('3074257BF7194E4000001A')).toBeUndefined();
    expect(sgtin96Uri('3074257BF7194E4000001A8500')).toBeUndefined();
    expect(sgtin96Uri('3074257bf7194e4000001a85')).toBeUndefined();
  });

  it('decodes the SPEC §5 vector', () => {
    expect(sgtin96Uri('3074257BF7194E4000001A85')).toBe('urn:epc:id:sgtin:0614141.812345.6789');
  });
});

describe('sgtin96Epcs (the URI back to its EPCs)', () => {
  it('gives back every SGTIN-96 whose fields fit their digits, and only those', () => {
    let fit = 0;
    for (let n = 0; n < 20_000; n++) {
      const hex = sgtin96();
      const uri = sgtin96Uri(hex);
      if (uri === undefined) continue;
      const filter = parseInt(hex.slice(2, 3), 16) >> 1;
      expect(sgtin96Epcs(uri)[filter] === hex, hex).toBe(sgtin96FieldsFit(uri));
      if (sgtin96FieldsFit(uri)) fit += 1;
    }
    expect(fit).toBeGreaterThan(10_000);
  });

  it('encodes the SPEC §5 vector with its filter value, and refuses what no SGTIN-96 holds', () => {
    expect(sgtin96Epcs('urn:epc:id:sgtin:0614141.812345.6789')[3]).toBe('3074257BF7194E4000001A85');
    expect(sgtin96Epcs('urn:epc:id:sgtin:0614141.812345.274877906943')[0]).toBe('3014257BF7194E7FFFFFFFFF');
    expect(sgtin96Epcs('urn:epc:id:sgtin:0614141.812345.274877906944')).toEqual([]);
    expect(sgtin96Epcs('urn:epc:id:sgtin:0614141.8123456.1')).toEqual([]);
    expect(sgtin96Epcs('urn:epc:id:sgtin:0614141.812345.01')).toEqual([]);
    expect(sgtin96Epcs('urn:epc:id:sscc:0614141.1234567890')).toEqual([]);
  });
});
