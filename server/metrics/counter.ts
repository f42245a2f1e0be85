import type { Sample } from './exposition';

/**
 * A monotonic count per combination of label values, kept in memory since the gateway started
 * (a restart starts again from 0, which Prometheus' `rate()` expects and handles). Label values
 * must come from closed sets (event types, status classes): never a name, id or address that a
 * client chooses, so the number of series stays small and nothing personal ends up in a scrape.
 */
export class Counter<Label extends string> {
  private readonly series = new Map<string, { labels: Record<Label, string>; value: number }>();

  constructor(private readonly labelNames: readonly Label[]) {}

  inc(labels: Record<Label, string>, by = 1): void {
    const key = this.key(labels);
    const entry = this.series.get(key);
    if (entry) entry.value += by;
    else this.series.set(key, { labels: { ...labels }, value: by });
  }

  /** Makes a series exist at 0 before its first event, so `rate()` and alerts see it from the start. */
  zero(labels: Record<Label, string>): void {
    const key = this.key(labels);
    if (!this.series.has(key)) this.series.set(key, { labels: { ...labels }, value: 0 });
  }

  get(labels: Record<Label, string>): number {
    return this.series.get(this.key(labels))?.value ?? 0;
  }

  samples(): Sample[] {
    return [...this.series.values()].map(({ labels, value }) => ({ labels, value }));
  }

  /** The label values in `labelNames`' order, NUL-separated (counted on every request: no arrays). */
  private key(labels: Record<Label, string>): string {
    const names = this.labelNames;
    let key = names.length > 0 ? (labels[names[0]] ?? '') : '';
    for (let i = 1; i < names.length; i++) key += `\u0000${labels[names[i]] ?? ''}`;
    return key;
  }
}
