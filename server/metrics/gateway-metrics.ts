import type { Status } from '../contract/dto';
import type { ReaderMetric } from '../services/readers.service';
import type { DestinationMetrics } from '../delivery/delivery-engine';
import type { CommitStats } from '../intake/commit/group-commit';
import type { Counter } from './counter';
import { renderExposition, type MetricFamily } from './exposition';
import type { IngestCounters } from './ingest-counters';
import { ResponseCounters } from './response-counters';

export interface MetricSources {
  /** What the data plane stored (told by the sync and queued paths after each commit). */
  events: IngestCounters;
  /** The admin API's `/status`: the one database read a scrape makes, the same one `/status` makes. */
  status: () => Promise<Status>;
  /** Group-commit counters, every lane together (the same figures as `/_health`'s `commit`). */
  commitStats: () => CommitStats;
  /** Per destination: backlog, dead letters and this instance's delivery counters (SPEC §11). */
  destinations: () => Promise<DestinationMetrics[]>;
  /** The MQTT broker (SPEC §15): clients connected now, and messages by what became of them. */
  mqtt: () => { clients: number; messages: Readonly<Record<string, number>> };
  /** The most recently heard readers (at most 1,000, SPEC §16). */
  readers: () => Promise<ReaderMetric[]>;
  /** Refused client requests by route (configured names, '' when the path named none) and code. */
  refusals?: Counter<'route' | 'code'>;
}

const gauge = (name: string, help: string, value: number, labels?: Record<string, string>): MetricFamily => ({
  name,
  help,
  type: 'gauge',
  samples: [{ labels, value }],
});
const counter = (name: string, help: string, value: number): MetricFamily => ({
  name,
  help,
  type: 'counter',
  samples: [{ value }],
});

/**
 * `/_metrics`: the figures the gateway keeps anyway, in the Prometheus text format. Nothing in
 * it identifies a person or a credential: labels are event types, modes and status classes
 * (closed sets), plus the version and database kind. Counters are this instance's since it
 * started. The status figures are `/status`'s own: the queue depth that the 503 check uses (on
 * PostgreSQL re-read from the shared database now and then, so every instance's queue), and the
 * last minute's submissions counted in the event store. If that read fails the scrape still
 * answers, with `gateway_database_up 0` and without them.
 */
export class GatewayMetrics {
  /** Fed by the HTTP app's response counter. */
  readonly responses = new ResponseCounters();

  constructor(private readonly sources: MetricSources) {}

  async render(): Promise<string> {
    // The one awaited read first; every in-memory figure after it, so they are of one instant.
    const [status, destinations, readers] = await Promise.all([
      this.sources.status().catch(() => null),
      this.sources.destinations().catch(() => []),
      this.sources.readers().catch(() => []),
    ]);
    const { events } = this.sources;
    const commit = this.sources.commitStats();
    return renderExposition([
      gauge(
        'gateway_database_up',
        'Whether the status read from the database succeeded during this scrape (1) or failed (0).',
        status ? 1 : 0,
      ),
      ...(status ? statusFamilies(status) : []),
      {
        name: 'gateway_events_received_total',
        help: 'Events stored on arrival by this instance: sync ones once processed or rejected, async ones once durably queued.',
        type: 'counter',
        samples: events.received.samples(),
      },
      {
        name: 'gateway_events_processed_total',
        help: 'Events processed and stored with their result by this instance (sync requests and the async worker).',
        type: 'counter',
        samples: events.processed.samples(),
      },
      {
        name: 'gateway_events_rejected_total',
        help: 'Events whose payload the event type refused (kept with status rejected) by this instance.',
        type: 'counter',
        samples: events.rejected.samples(),
      },
      ...(this.sources.refusals
        ? [
            {
              name: 'gateway_refused_requests_total',
              help: 'Client requests refused with a problem answer, by route (empty when the path named no route) and code.',
              type: 'counter' as const,
              samples: this.sources.refusals.samples(),
            },
          ]
        : []),
      {
        name: 'gateway_event_processing_errors_total',
        help: 'Failed processing attempts of queued events (storage trouble); each is retried with backoff, then marked failed.',
        type: 'counter',
        samples: events.processingErrors.samples(),
      },
      counter('gateway_group_commit_flushes_total', 'Group-commit transactions committed.', commit.flushes),
      counter(
        'gateway_group_commit_events_total',
        'Event rows written by group-commit inserts (async acknowledgements, rejected sync events).',
        commit.events,
      ),
      counter(
        'gateway_group_commit_jobs_total',
        'Group-commit jobs (acknowledgements and processing) committed.',
        commit.jobs,
      ),
      {
        name: 'gateway_http_responses_total',
        help: 'HTTP responses sent by this instance, by status class.',
        type: 'counter',
        samples: this.responses.byClass.samples(),
      },
      ...destinationFamilies(destinations),
      ...mqttFamilies(this.sources.mqtt()),
      ...readerFamilies(readers),
    ]);
  }
}

/** SPEC §15's broker metrics: every result is listed, a zero included, so rates start at once. */
function mqttFamilies(mqtt: ReturnType<MetricSources['mqtt']>): MetricFamily[] {
  return [
    gauge('gateway_mqtt_clients', 'MQTT clients connected to the embedded broker now.', mqtt.clients),
    {
      name: 'gateway_mqtt_messages_total',
      help: 'MQTT PUBLISH messages by result: stored, rejected (acknowledged, kept as rejected), unrouted, forbidden, unavailable.',
      type: 'counter',
      samples: Object.entries(mqtt.messages).map(([result, value]) => ({ labels: { result }, value })),
    },
  ];
}

/** SPEC §16's reader metrics, labelled by reader id (the 1,000 most recently heard). */
function readerFamilies(readers: ReaderMetric[]): MetricFamily[] {
  const by = (value: (r: ReaderMetric) => number) =>
    readers.map((r) => ({ labels: { reader: r.readerId }, value: value(r) }));
  return [
    {
      name: 'gateway_reader_reads_total',
      help: 'Counted tag reads of the reader (every instance sharing the database).',
      type: 'counter',
      samples: by((r) => r.readsTotal),
    },
    {
      name: 'gateway_reader_online',
      help: 'Whether the reader was heard from within its silentAfterSeconds (1) or is silent (0).',
      type: 'gauge',
      samples: by((r) => (r.online ? 1 : 0)),
    },
    {
      name: 'gateway_reader_last_seen_seconds',
      help: 'Seconds since the reader was last heard from.',
      type: 'gauge',
      samples: by((r) => r.lastSeenSecondsAgo),
    },
  ];
}

/** SPEC §11's four destination metrics, labelled by destination name. */
function destinationFamilies(destinations: DestinationMetrics[]): MetricFamily[] {
  const by = (value: (d: DestinationMetrics) => number) =>
    destinations.map((d) => ({ labels: { destination: d.name }, value: value(d) }));
  return [
    {
      name: 'gateway_destination_backlog',
      help: 'Delivery items waiting for the destination (dead letters not counted).',
      type: 'gauge',
      samples: by((d) => d.backlog),
    },
    {
      name: 'gateway_destination_delivered_total',
      help: 'Delivery items this instance delivered to the destination (a 2xx answer).',
      type: 'counter',
      samples: by((d) => d.deliveredTotal),
    },
    {
      name: 'gateway_destination_failures_total',
      help: 'Failed delivery attempts by this instance, by reason (timeout, connection, tls, http_status).',
      type: 'counter',
      samples: destinations.flatMap((d) =>
        [...d.failures].map(([reason, value]) => ({ labels: { destination: d.name, reason }, value })),
      ),
    },
    {
      name: 'gateway_destination_dead_letters',
      help: 'Dead-lettered batches of the destination, waiting to be retried or discarded.',
      type: 'gauge',
      samples: by((d) => d.deadLetters),
    },
  ];
}

function statusFamilies(status: Status): MetricFamily[] {
  return [
    gauge('gateway_info', 'Always 1; the labels name the gateway version and the database kind.', 1, {
      version: status.version,
      database: status.database,
    }),
    gauge('gateway_uptime_seconds', 'Seconds since the gateway started.', status.uptimeSeconds),
    gauge(
      'gateway_queue_depth',
      'Events acknowledged (or being committed) and not yet in a final state; maxQueueDepth bounds it.',
      status.queueDepth,
    ),
    gauge(
      'gateway_events_received_last_minute',
      'Submissions received in the last 60 seconds according to the event store (every instance sharing it).',
      status.eventsPerMinute,
    ),
  ];
}
