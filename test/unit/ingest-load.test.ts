import { describe, expect, it } from 'vitest';
import { IngestLoad, QUEUE_FLOOR, QUEUE_SECONDS } from '../../server/intake/commit/ingest-load';
import { QueueDepth } from '../../server/intake/commit/queue-depth';

const loadWith = (maxQueueDepth: number) => {
  const depth = new QueueDepth();
  return { depth, load: new IngestLoad(depth, () => maxQueueDepth) };
};

/** Admits until the first refusal; how many were admitted, and the refusal. */
function fill(load: IngestLoad, upTo: number) {
  for (let admitted = 0; admitted < upTo; admitted++) {
    const answer = load.admitQueued();
    if (!answer.admitted) return { admitted, refusal: answer };
  }
  return { admitted: upTo, refusal: null };
}

describe('IngestLoad: where intake sheds', () => {
  it('holds the configured cap until processing has been measured', () => {
    const { load } = loadWith(50_000);
    expect(load.processingRate).toBeNull();
    expect(load.queueBound()).toBe(50_000);
    expect(fill(load, 60_000).admitted).toBe(50_000);
  });

  it('sheds once the queue holds QUEUE_SECONDS of processing at the measured rate, below the cap', () => {
    const { load, depth } = loadWith(100_000);
    load.recordBatch(200, 10, true); // 20 000 events/s
    expect(load.processingRate).toBe(20_000);
    expect(load.queueBound()).toBe(20_000 * QUEUE_SECONDS);
    const { admitted, refusal } = fill(load, 100_000);
    expect(admitted).toBe(40_000);
    expect(depth.current).toBe(40_000);
    // The client is told how long the worker needs for what is queued: 40 000 at 20 000/s.
    expect(refusal).toEqual({ admitted: false, retryAfterSeconds: 2 });
    load.released(1);
    expect(load.admitQueued().admitted).toBe(true);
  });

  it('never sheds below QUEUE_FLOOR nor above maxQueueDepth', () => {
    const slow = loadWith(100_000).load;
    slow.recordBatch(200, 2_000, true); // 100 events/s
    expect(slow.queueBound()).toBe(QUEUE_FLOOR);
    const capped = loadWith(3).load;
    capped.recordBatch(200, 10, true);
    expect(capped.queueBound()).toBe(3);
  });

  it('learns capacity from full batches only: a batch that emptied the queue says nothing about speed', () => {
    const { load } = loadWith(100_000);
    load.recordBatch(3, 50, false);
    expect(load.processingRate).toBeNull();
    load.recordBatch(200, 20, true);
    load.recordBatch(200, 40, true);
    // Smoothed: 10 000 then a 5 000 sample weighs in by a fifth.
    expect(load.processingRate).toBe(9_000);
  });

  it('keeps Retry-After between 1 and 30 seconds', () => {
    const fast = loadWith(100_000).load;
    fast.recordBatch(200, 1, true); // 200 000/s: the cap binds, worked off in half a second
    expect(fill(fast, 200_000).refusal).toEqual({ admitted: false, retryAfterSeconds: 1 });
    const crawling = loadWith(100_000);
    crawling.load.recordBatch(200, 200_000, true); // 1 event/s
    expect(fill(crawling.load, 100_000).refusal).toEqual({ admitted: false, retryAfterSeconds: 30 });
  });
});

describe('IngestLoad: async events processed at once (issue 37)', () => {
  it('admits while nothing is queued, up to atOnceLimit at a time', () => {
    const { load } = loadWith(50_000);
    for (let i = 0; i < load.atOnceLimit; i++) expect(load.admitAtOnce()).toBe(true);
    // A burst beyond the limit is queued instead.
    expect(load.admitAtOnce()).toBe(false);
    load.releasedAtOnce();
    expect(load.admitAtOnce()).toBe(true);
  });

  it('never overtakes an event already queued', () => {
    const { load } = loadWith(50_000);
    expect(load.admitQueued().admitted).toBe(true);
    expect(load.admitAtOnce()).toBe(false);
    load.released();
    expect(load.admitAtOnce()).toBe(true);
  });
});
