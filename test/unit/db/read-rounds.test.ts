import { describe, expect, it } from 'vitest';
import { ReadRounds } from '../../../server/db/read-rounds';

/** A read the test finishes by hand; `database` stands for what is committed when a read starts. */
function manualReads() {
  let database = 0;
  const started: { saw: number; finish: () => void; fail: (error: Error) => void }[] = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const saw = database;
      started.push({ saw, finish: () => resolve(saw), fail: reject });
    });
  return {
    read,
    started,
    commit: () => (database += 1),
    /** Lets the settled read's reactions (and the next round's start) run. */
    turn: () => new Promise<void>((resolve) => setImmediate(resolve)),
  };
}

describe('ReadRounds', () => {
  it('gives everyone who asked while a read ran one read of their own, started after they asked', async () => {
    const rounds = new ReadRounds();
    const reads = manualReads();
    const first = rounds.read('page', reads.read);
    reads.commit(); // answered to a client, who now asks
    const later = Array.from({ length: 10 }, () => rounds.read('page', reads.read));
    expect(reads.started).toHaveLength(1);
    reads.started[0].finish();
    expect(await first).toBe(0);
    await reads.turn();
    expect(reads.started).toHaveLength(2);
    reads.started[1].finish();
    expect(await Promise.all(later)).toEqual(Array(10).fill(1));
  });

  it('chains round after round: a caller who asks while the second round runs gets a third', async () => {
    const rounds = new ReadRounds();
    const reads = manualReads();
    const first = rounds.read('page', reads.read);
    const second = rounds.read('page', reads.read);
    reads.started[0].finish();
    await first;
    await reads.turn();
    expect(reads.started).toHaveLength(2);
    reads.commit();
    const third = rounds.read('page', reads.read);
    reads.started[1].finish();
    expect(await second).toBe(0);
    await reads.turn();
    expect(reads.started).toHaveLength(3);
    reads.started[2].finish();
    expect(await third).toBe(1);
  });

  it('answers a read that throws before it returns a promise as a refusal of its round', async () => {
    const rounds = new ReadRounds();
    const broken = (): Promise<number> => {
      throw new Error('no connection');
    };
    await expect(rounds.read('page', broken)).rejects.toThrow('no connection');
    const reads = manualReads();
    const after = rounds.read('page', reads.read);
    await reads.turn();
    reads.started[0].finish();
    expect(await after).toBe(0);
  });

  it('starts afresh once no read runs, and keeps different keys apart', async () => {
    const rounds = new ReadRounds();
    const reads = manualReads();
    const a = rounds.read('a', reads.read);
    const b = rounds.read('b', reads.read);
    expect(reads.started).toHaveLength(2);
    reads.started.forEach((read) => read.finish());
    await Promise.all([a, b]);
    await reads.turn();
    reads.commit();
    const again = rounds.read('a', reads.read);
    expect(reads.started).toHaveLength(3);
    reads.started[2].finish();
    expect(await again).toBe(1);
  });

  it('fails only the callers of the read that failed', async () => {
    const rounds = new ReadRounds();
    const reads = manualReads();
    const first = rounds.read('page', reads.read);
    const second = rounds.read('page', reads.read);
    reads.started[0].fail(new Error('disk I/O error'));
    await expect(first).rejects.toThrow('disk I/O error');
    await reads.turn();
    reads.started[1].finish();
    expect(await second).toBe(0);
  });
});
