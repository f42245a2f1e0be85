/**
 * SGTIN-96 (header 0x30), the EPC of nearly every tagged retail item, decoded with plain
 * numbers. `epc-tds` decodes every scheme through `BigInt`, which was the largest single cost of
 * a new tag read on the main thread (docs/performance.md); the fields of a 96-bit SGTIN all fit
 * in a double's 53 bits, so this scheme needs none. Other schemes still go through `epc-tds`.
 *
 * Bit layout (GS1 EPC Tag Data Standard §14.5.1): header 8, filter 3, partition 3, company
 * prefix and item reference 44 together (split by the partition), serial 38.
 */

/** Per partition value: the company prefix's digits and the item reference's bits and digits. */
const PARTITIONS: readonly { companyDigits: number; itemBits: number; itemDigits: number }[] = [
  { companyDigits: 12, itemBits: 4, itemDigits: 1 },
  { companyDigits: 11, itemBits: 7, itemDigits: 2 },
  { companyDigits: 10, itemBits: 10, itemDigits: 3 },
  { companyDigits: 9, itemBits: 14, itemDigits: 4 },
  { companyDigits: 8, itemBits: 17, itemDigits: 5 },
  { companyDigits: 7, itemBits: 20, itemDigits: 6 },
  { companyDigits: 6, itemBits: 24, itemDigits: 7 },
];

const HEX_96 = /^30[0-9A-F]{22}$/;

/**
 * The pure-identity URI of an upper-case SGTIN-96, as `epc-tds` writes it (segments zero-padded
 * to their digits, the serial in decimal), or undefined when `hex` is not one this function
 * decodes (another scheme, another length, partition 7): the caller then asks `epc-tds`.
 */
export function sgtin96Uri(hex: string): string | undefined {
  if (!HEX_96.test(hex)) return undefined;
  // Bits 8–55 and 56–95: 48 and 40 bits, each exact in a double.
  const high = parseInt(hex.slice(2, 14), 16);
  const low = parseInt(hex.slice(14), 16);
  const partition = PARTITIONS[Math.floor(high / 2 ** 42) % 8];
  if (partition === undefined) return undefined;
  // Company prefix and item reference: bits 14–57, the low 42 bits of `high` then the top 2 of `low`.
  const companyAndItem = (high % 2 ** 42) * 4 + Math.floor(low / 2 ** 38);
  const itemScale = 2 ** partition.itemBits;
  const company = Math.floor(companyAndItem / itemScale);
  const item = companyAndItem % itemScale;
  const serial = low % 2 ** 38;
  return `urn:epc:id:sgtin:${String(company).padStart(partition.companyDigits, '0')}.${String(item).padStart(partition.itemDigits, '0')}.${String(serial)}`;
}

const SGTIN_PREFIX = 'urn:epc:id:sgtin:';

/**
 * Whether a URI `sgtin96Uri` wrote has each field in its digits, so that `sgtin96Epcs` gives the
 * EPC back: a company prefix or item reference beyond its digits (partition 0 holds up to
 * 1,099,511,627,775 in 12 digits' place) makes the two 14 digits or more. They are 13 with the
 * dot between them exactly when the serial's dot follows at index 31.
 */
export const sgtin96FieldsFit = (uri: string): boolean => uri.charCodeAt(SGTIN_PREFIX.length + 14) === 0x2e;

const SGTIN_URI = /^urn:epc:id:sgtin:(\d{6,12})\.(\d{1,7})\.(0|[1-9]\d{0,11})$/;
const hexDigits = (value: number, digits: number) => value.toString(16).toUpperCase().padStart(digits, '0');

/**
 * The SGTIN-96s whose URI `sgtin96Uri` writes as `uri`, one per filter value (the URI leaves it
 * out; index = filter value 0–7), or none when no SGTIN-96 is written so: the company prefix and
 * item reference must have 13 digits between them and the serial must be a decimal without
 * leading zeros below 2^38 (the Tag Data Standard's rules for this scheme). The inverse of
 * `sgtin96Uri` for every EPC whose fields fit their digits.
 */
export function sgtin96Epcs(uri: string): string[] {
  const match = SGTIN_URI.exec(uri);
  if (match === null) return [];
  const [, company = '', item = '', serialText = ''] = match;
  const partitionValue = PARTITIONS.findIndex((p) => p.companyDigits === company.length);
  const partition = PARTITIONS[partitionValue];
  const serial = Number(serialText);
  if (partition === undefined || item.length !== partition.itemDigits || serial >= 2 ** 38) return [];
  // Every partition's bits hold its digits, so the numbers fit their fields.
  const companyAndItem = Number(company) * 2 ** partition.itemBits + Number(item);
  const high = partitionValue * 2 ** 42 + Math.floor(companyAndItem / 4);
  const low = hexDigits((companyAndItem % 4) * 2 ** 38 + serial, 10);
  return Array.from({ length: 8 }, (_, filter) => `30${hexDigits(filter * 2 ** 45 + high, 12)}${low}`);
}
