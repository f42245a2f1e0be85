import tds from 'epc-tds';
import { sgtin96Epcs, sgtin96FieldsFit, sgtin96Uri } from './sgtin96';

/** Gen2 EPC memory holds at most 496 bits of EPC: 124 hex digits. */
export const MAX_EPC_HEX_DIGITS = 124;

/**
 * Why a hex string cannot be an EPC (or TID), or null when it can: non-empty, hex digits only,
 * whole bytes, at most 496 bits. The message completes a sentence that starts with the field name.
 */
export function hexProblem(hex: string): string | null {
  if (hex.length === 0) return 'must not be empty';
  if (!/^[0-9A-Fa-f]+$/.test(hex)) return 'must contain only hex digits (0-9, A-F)';
  if (hex.length % 2 !== 0) return 'must have an even number of hex digits (whole bytes)';
  if (hex.length > MAX_EPC_HEX_DIGITS) return `must be at most ${String(MAX_EPC_HEX_DIGITS)} hex digits (496 bits)`;
  return null;
}

/**
 * Decoded EPCs by their hex. Decoding is a pure function of the hex, and readers report the same
 * tag population over and over (hence the dedup window), so most reads are repeats; decoding with
 * epc-tds costs measurably more per read than a lookup (figures: docs/performance.md,
 * P06). Bounded by `DECODED_LIMIT` entries: cleared when full.
 */
const decoded = new Map<string, Decoded>();
const DECODED_LIMIT = 20_000;

interface Decoded {
  uri: string;
  /** Whether `epcsOfUri(uri)` lists this EPC. */
  listed: boolean;
}

/**
 * The pure-identity URI of an EPC (GS1 EPC Tag Data Standard), e.g.
 * `3074257BF7194E4000001A85` → `urn:epc:id:sgtin:0614141.812345.6789`.
 *
 * Anything that is not a well-formed GS1 EPC of a scheme `epc-tds` knows (factory-programmed
 * EPCs, unknown headers, wrong lengths) becomes the raw URI `urn:epc:raw:<bits>.x<HEX>`. Never
 * throws: an unknown EPC is still a tag read.
 */
export function decodeEpc(hex: string): string {
  return decodedEpc(hex.toUpperCase()).uri;
}

function decodedEpc(upper: string): Decoded {
  let entry = decoded.get(upper);
  if (entry === undefined) {
    entry = decodeGs1(upper) ?? { uri: `urn:epc:raw:${String(upper.length * 4)}.x${upper}`, listed: true };
    if (decoded.size >= DECODED_LIMIT) decoded.clear();
    decoded.set(upper, entry);
  }
  return entry;
}

function decodeGs1(hex: string): Decoded | null {
  const sgtin = sgtin96Uri(hex);
  if (sgtin !== undefined) return { uri: sgtin, listed: sgtin96FieldsFit(sgtin) };
  if (hexProblem(hex) !== null) return null;
  try {
    const uri = checkedIdUri(hex);
    return uri === null ? null : { uri, listed: false };
  } catch {
    // Unknown header (non-GS1, e.g. factory EPCs), or a partition value the scheme does not
    // define: epc-tds throws, sometimes only once the URI is built.
    return null;
  }
}

function checkedIdUri(hex: string): string | null {
  const decoded = tds.valueOf(hex);
  // epc-tds decodes whatever it is given: it pads a short input with zeros and ignores extra
  // digits. So check the length ourselves: the hex must cover the scheme's bits and may run on
  // only to the end of the 16-bit word they end in (Gen2 EPC memory is word-aligned), with
  // that padding all zeros. A 96-bit EPC therefore must be exactly 24 digits.
  const bits = hex.length * 4;
  const schemeBits = decoded.getTotalBits();
  if (bits < schemeBits || bits > Math.ceil(schemeBits / 16) * 16) return null;
  const canonical = decoded.toHexString().toUpperCase();
  if (!hex.startsWith(canonical) || !/^0*$/.test(hex.slice(canonical.length))) return null;

  const uri = decoded.toIdURI();
  // A field that decodes to nothing (`sgtin:000000000000.0.` from an empty 198-bit serial) is
  // not a usable identity; treat it like any other undecodable EPC.
  const match = /^urn:epc:id:[a-z]+:(.+)$/.exec(uri);
  if (!match?.[1] || match[1].split('.').some((part) => part.length === 0)) return null;
  return uri;
}

/**
 * Reads the GET filter `epc`: hex in any case (→ upper-case `epc`), or an EPC URI `urn:epc:...`
 * (→ `epcUri`, with the URN prefix lower-cased and a raw URI's hex upper-cased, as `decodeEpc`
 * writes them). Null when it is neither.
 */
export function normalizeEpcFilter(value: string): { epc: string } | { epcUri: string } | null {
  const trimmed = value.trim();
  if (hexProblem(trimmed) === null) return { epc: trimmed.toUpperCase() };
  // RFC 8141: the `urn` scheme and the namespace id are case-insensitive. Within EPC URIs the
  // Tag Data Standard's own words (`id`, `sgtin`, `raw`: all but the last segment) are lower-case
  // tokens, so any spelling of them is the same URI; the value itself (a GIAI serial may hold
  // letters) keeps its case.
  const rest = /^urn:epc:/i.test(trimmed) ? trimmed.slice('urn:epc:'.length).split(':') : null;
  const uri =
    rest === null
      ? null
      : `urn:epc:${rest.map((segment, i) => (i < rest.length - 1 ? segment.toLowerCase() : segment)).join(':')}`;
  if (uri === null || uri.length === 'urn:epc:'.length || /\s/.test(uri)) return null;
  const raw = /^urn:epc:raw:(\d+)\.x([0-9A-Fa-f]+)$/.exec(uri);
  if (raw) {
    const [, bits = '', digits = ''] = raw;
    return { epcUri: `urn:epc:raw:${bits}.x${digits.toUpperCase()}` };
  }
  return { epcUri: uri };
}

// Whole bytes only: no stored EPC has half a byte, and the databases refuse to decode one.
const RAW_URI = /^urn:epc:raw:(\d+)\.x((?:[0-9A-F]{2})+)$/;

/**
 * The EPCs (upper-case hex) that `decodeEpc` gives exactly this URI and that can be listed from
 * it: a raw URI's own hex, and an SGTIN's SGTIN-96 encodings with each filter value (the URI
 * leaves the filter out). Any other EPC with this URI (another scheme, an SGTIN-198, fields
 * padded beyond their digits) is not listed: `uriListsEpc` tells which, and storage finds
 * those by a hash of the URI (docs/decisions/0415-epc-uri-filter-by-its-epcs.md).
 */
function epcsOfUri(uri: string): string[] {
  const raw = RAW_URI.exec(uri);
  if (raw) return raw[1] === String((raw[2]?.length ?? 0) * 4) ? [raw[2] ?? ''] : [];
  return sgtin96Epcs(uri);
}

/** The inventory's URI filter: the URI with the EPCs it lists. */
export const epcUriFilter = (uri: string): { uri: string; epcs: string[] } => ({ uri, epcs: epcsOfUri(uri) });

/**
 * Whether `epcsOfUri(uri)` holds `epc` (upper-case hex), without listing them: `uri` must be the
 * EPC's own `decodeEpc`, which knows whether it is listed.
 */
export function uriListsEpc(epc: string, uri: string): boolean {
  const entry = decodedEpc(epc);
  return entry.listed && entry.uri === uri;
}
