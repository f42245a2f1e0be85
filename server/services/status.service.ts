import type { DestinationSummary, ReaderCounts } from '../contract/dto';
import type { GatewayHandlers } from '../contract/operations';
import type { Db } from '../db';
import { eventsRepo } from '../repositories/events.repo';
import { VERSION } from '../version';

type StatusHandlers = Pick<GatewayHandlers, 'getStatus' | 'getTraffic'>;

/** `/status` and the dashboard's traffic chart (SPEC §6): what the gateway is and does now. */
export function createStatusService(deps: {
  db: Db;
  now: () => number;
  runtime: { readonly startedAt: number; readonly listenUrls: string[] };
  queueDepth: () => number;
  /** `/status`'s line per destination (SPEC §11). */
  destinations: () => Promise<DestinationSummary[]>;
  /** The MQTT broker now (SPEC §15): its mode, connected clients and listening URLs while it runs. */
  mqtt: () => { mode: 'off' | 'on'; clients: number; urls: string[] };
  /** `/status`'s `readers` (SPEC §16). */
  readers: () => Promise<ReaderCounts>;
}) {
  const { db, now, runtime } = deps;
  return {
    async getStatus() {
      const mqtt = deps.mqtt();
      return {
        version: VERSION,
        uptimeSeconds: Math.floor((now() - runtime.startedAt) / 1000),
        listenUrls: [...runtime.listenUrls, ...mqtt.urls],
        database: db.kind,
        queueDepth: deps.queueDepth(),
        // Counts read beside the writer (SQLite's read pool): /status and /_metrics scrapes never
        // queue behind, or hold up, a group commit.
        eventsPerMinute: await eventsRepo.countReceivedSince(db.reads, now() - 60_000),
        destinations: await deps.destinations(),
        mqtt: { mode: mqtt.mode, clients: mqtt.clients },
        readers: await deps.readers(),
      };
    },
    async getTraffic() {
      const minute = Math.floor(now() / 60_000);
      const counts = await eventsRepo.countPerMinute(db.reads, (minute - 59) * 60_000);
      return {
        minutes: Array.from({ length: 60 }, (_, i) => minute - 59 + i).map((m) => ({
          start: new Date(m * 60_000).toISOString(),
          count: counts.get(m) ?? 0,
        })),
      };
    },
  } satisfies StatusHandlers;
}
