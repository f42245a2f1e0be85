/** UHFTagRead processing: reader formats → tag reads → dedup and live inventory. Pure, no I/O. */
export { decodeEpc, normalizeEpcFilter } from './epc';
export { normalizeTagReads } from './normalize';
export type { TagRead } from './tag-read';
export { applyTagReads, dedupKey } from './inventory';
export type { ApplyResult, ApplySummary, DedupState } from './inventory';
