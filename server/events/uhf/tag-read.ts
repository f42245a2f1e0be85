import type { ReceiveContext } from '../types';
import { decodeEpc } from './epc';

/** One tag read, whatever reader format it came in. */
export interface TagRead {
  /** Upper-case hex. */
  epc: string;
  /** Pure-identity URI, or `urn:epc:raw:...` when the EPC is not a decodable GS1 one. */
  epcUri: string;
  /** Upper-case hex, when the reader sent the tag's TID. */
  tid: string | null;
  /** From the payload, else the authenticated principal. */
  readerId: string;
  antenna: number | null;
  /** dBm. */
  rssi: number | null;
  /** Ms since the epoch: the reader's time, else the gateway's receive time. */
  readAt: number;
}

/** What a format extracts from one record; the context fills what the reader did not send. */
export interface ExtractedRead {
  epc: string;
  tid: string | null;
  readerId: string | null;
  antenna: number | null;
  rssi: number | null;
  readAt: number | null;
}

export function toTagRead(read: ExtractedRead, context: ReceiveContext): TagRead {
  return {
    epc: read.epc,
    epcUri: decodeEpc(read.epc),
    tid: read.tid,
    readerId: read.readerId ?? context.defaultReaderId,
    antenna: read.antenna,
    rssi: read.rssi,
    readAt: read.readAt ?? context.receivedAt,
  };
}
