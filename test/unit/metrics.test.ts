import { describe, expect, it } from 'vitest';
import { renderExposition } from '../../server/metrics/exposition';
import { GatewayMetrics } from '../../server/metrics/gateway-metrics';
import { IngestCounters } from '../../server/metrics/ingest-counters';
import { statusClass } from '../../server/metrics/response-counters';

describe('renderExposition', () => {
  it('escapes help text and label values as the text format requires', () => {
    const text = renderExposition([
      {
        name: 'demo_total',
        help: 'line one\nback\\slash',
        type: 'counter',
        samples: [{ labels: { kind: 'say "hi"\\\n' }, value: 2 }],
      },
      { name: 'demo_gauge', help: 'odd values', type: 'gauge', samples: [{ value: Infinity }, { value: NaN }] },
    ]);
    expect(text).toBe(
      [
        '# HELP demo_total line one\\nback\\\\slash',
        '# TYPE demo_total counter',
        'demo_total{kind="say \\"hi\\"\\\\\\n"} 2',
        '# HELP demo_gauge odd values',
        '# TYPE demo_gauge gauge',
        'demo_gauge +Inf',
        'demo_gauge NaN',
        '',
      ].join('\n'),
    );
  });

  it('refuses names the format cannot carry', () => {
    expect(() => renderExposition([{ name: 'bad-name', help: 'x', type: 'gauge', samples: [] }])).toThrow();
    expect(() =>
      renderExposition([
        { name: 'ok', help: 'x', type: 'gauge', samples: [{ labels: { 'bad-label': 'v' }, value: 1 }] },
      ]),
    ).toThrow();
  });
});

describe('GatewayMetrics', () => {
  it('labels the reader metrics by reader id (SPEC §16)', async () => {
    const metrics = new GatewayMetrics({
      events: new IngestCounters(),
      status: () => Promise.reject(new Error('down')),
      commitStats: () => ({ flushes: 0, events: 0, jobs: 0 }),
      mqtt: () => ({ clients: 0, messages: {} }),
      destinations: () => Promise.resolve([]),
      readers: () =>
        Promise.resolve([
          { readerId: 'fx9600-dock', readsTotal: 42, online: true, lastSeenSecondsAgo: 3.5 },
          { readerId: 'r700-gate', readsTotal: 0, online: false, lastSeenSecondsAgo: 900 },
        ]),
    });
    const text = await metrics.render();
    expect(text).toContain('gateway_reader_reads_total{reader="fx9600-dock"} 42\n');
    expect(text).toContain('gateway_reader_online{reader="fx9600-dock"} 1\n');
    expect(text).toContain('gateway_reader_online{reader="r700-gate"} 0\n');
    expect(text).toContain('gateway_reader_last_seen_seconds{reader="r700-gate"} 900\n');
  });

  it('still answers its counters when the status read fails, with gateway_database_up 0', async () => {
    const events = new IngestCounters();
    events.receivedOne('UHFTagRead', 'async');
    const metrics = new GatewayMetrics({
      events,
      status: () => Promise.reject(new Error('SQLITE_BUSY')),
      commitStats: () => ({ flushes: 4, events: 5, jobs: 6 }),
      destinations: () => Promise.reject(new Error('SQLITE_BUSY')),
      mqtt: () => ({ clients: 2, messages: { stored: 7, rejected: 0 } }),
      readers: () => Promise.reject(new Error('SQLITE_BUSY')),
    });
    metrics.responses.count(503);
    const text = await metrics.render();
    expect(text).toContain('gateway_database_up 0\n');
    expect(text).not.toContain('gateway_queue_depth');
    expect(text).toContain('gateway_events_received_total{event_type="UHFTagRead",mode="async"} 1\n');
    expect(text).toContain('gateway_group_commit_events_total 5\n');
    expect(text).toContain('gateway_http_responses_total{class="5xx"} 1\n');
    expect(text).toContain('gateway_mqtt_clients 2\n');
    expect(text).toContain('gateway_mqtt_messages_total{result="stored"} 7\n');
  });

  it('labels the destination metrics by destination name, failures by reason too', async () => {
    const metrics = new GatewayMetrics({
      events: new IngestCounters(),
      status: () => Promise.reject(new Error('down')),
      commitStats: () => ({ flushes: 0, events: 0, jobs: 0 }),
      mqtt: () => ({ clients: 0, messages: {} }),
      readers: () => Promise.resolve([]),
      destinations: () =>
        Promise.resolve([
          { name: 'WMS', backlog: 12, deadLetters: 2, deliveredTotal: 340, failures: new Map([['timeout', 3]]) },
        ]),
    });
    const text = await metrics.render();
    expect(text).toContain('gateway_destination_backlog{destination="WMS"} 12\n');
    expect(text).toContain('gateway_destination_delivered_total{destination="WMS"} 340\n');
    expect(text).toContain('gateway_destination_failures_total{destination="WMS",reason="timeout"} 3\n');
    expect(text).toContain('gateway_destination_dead_letters{destination="WMS"} 2\n');
  });

  it('counts status classes', () => {
    expect([200, 202, 304, 404, 429, 503].map(statusClass)).toEqual(['2xx', '2xx', '3xx', '4xx', '4xx', '5xx']);
  });
});
