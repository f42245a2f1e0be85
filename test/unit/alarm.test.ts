import { describe, expect, it } from 'vitest';
import { Alarm } from '../../server/alarm';

/** Resolves to how long `promise` took, in ms. */
async function took(promise: Promise<void>): Promise<number> {
  const started = performance.now();
  await promise;
  return performance.now() - started;
}

describe('Alarm', () => {
  it('waits the full time when nobody wakes it', async () => {
    expect(await took(new Alarm().wait(60))).toBeGreaterThanOrEqual(50);
  });

  it('ends a wait at the wake', async () => {
    const alarm = new Alarm();
    const waiting = took(alarm.wait(5_000));
    setTimeout(() => alarm.wake(), 10);
    expect(await waiting).toBeLessThan(1_000);
  });

  it('keeps a wake that came while nobody waited for the next wait, once', async () => {
    const alarm = new Alarm();
    alarm.wake();
    expect(await took(alarm.wait(5_000))).toBeLessThan(1_000);
    expect(await took(alarm.wait(60))).toBeGreaterThanOrEqual(50);
  });

  it('forgets a kept wake when cleared', async () => {
    const alarm = new Alarm();
    alarm.wake();
    alarm.clear();
    expect(await took(alarm.wait(60))).toBeGreaterThanOrEqual(50);
  });
});
