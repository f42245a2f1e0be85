/** UHFTagRead processing: reader formats → tag reads → dedup and live inventory. Pure, no I/O. */
export { decodeEpc, epcUriFilter, hexProblem, normalizeEpcFilter, uriListsEpc } from './epc';
export { normalizeTagReads, normalizeUhfBody, type UhfBatch } from './normalize';
export type { ReaderAlarm, ReaderHealth, ReaderStatus } from './reader-status';
export type { TagRead } from './tag-read';
export { applyTagReads, dedupKey } from './inventory';
export type { ApplyResult, ApplySummary, DedupState } from './inventory';
export { NO_ANTENNA, ReaderActivities, type AntennaActivity, type ReaderActivity } from './reader-activity';
