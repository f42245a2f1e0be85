/**
 * The tags the simulated readers report. SGTIN-96 of company 0614141, item 812345, filter 3:
 * header 0x30, then filter/partition/company/item in the next 58 bits; with this company and item
 * the 6 serial bits above the low 32 are zero, so serial n is the prefix followed by n as 8 hex
 * digits. Every body therefore carries real, decodable EPCs (urn:epc:id:sgtin:0614141.812345.<n>).
 */
export const SGTIN_PREFIX = '3074257BF7194E40';

/** The distinct-tag cases cycle this many serials: a site's worth of new tags. */
export const DISTINCT_TAG_POOL = 1_000_000;

/**
 * The batched cases' pool: at tens of thousands of reads per second a million serials would come
 * round again within a run, and repeats are cheaper than the new tags these cases measure.
 */
export const BATCH_TAG_POOL = 1_000_000_000;

/** Tag reads per POST in the batched cases (`BENCH_BATCH`): Zebra's HTTP POST batching. */
export const BATCH_READS = Math.max(1, Math.floor(Number(process.env.BENCH_BATCH ?? 50)));

/** The repeated-tag cases cycle this many serials (`BENCH_TAGS`), so after a warm-up every EPC is known. */
export const REPEATED_TAG_POOL = Math.max(1, Number(process.env.BENCH_TAGS ?? 5000));

/** The EPC hex of serial `n` of the pool (n < 2^32). */
export function epcHex(serial: number): string {
  if (!Number.isInteger(serial) || serial < 0 || serial > 0xffff_ffff) throw new RangeError(`serial ${serial}`);
  return SGTIN_PREFIX + serial.toString(16).toUpperCase().padStart(8, '0');
}
