import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import sqlite3 from 'sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';
import { freePort } from '../helpers/free-port';

/**
 * SPEC §15's promise through faults: a PUBACK means stored, across a SIGKILL; and a site's own
 * broker (a real Mosquitto) bridges a topic to the gateway.
 */
const dataDirs: string[] = [];
const children: ChildGateway[] = [];
const others: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.process.kill('SIGKILL');
  for (const other of others) other.kill('SIGKILL');
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** A child gateway with the broker on `mqttPort` and one async UHFTagRead route on `topic`. */
async function gatewayWithBroker(dataDir: string, mqttPort: number, topic: string | null): Promise<ChildGateway> {
  const child = await startChildGateway(['--data-dir', dataDir, '--mqtt-port', String(mqttPort)]);
  children.push(child);
  const token = await childAdminToken(child.base);
  const admin = (method: string, path: string, body: unknown) =>
    fetch(`${child.base}/_admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  if (topic !== null) {
    expect((await admin('PUT', '/settings', { mqttMode: 'on' })).status).toBe(200);
    const route = { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', async: true };
    const created = await admin('POST', '/endpoints', {
      name: 'M',
      baseRoutePath: 'm',
      routes: [{ ...route, mqttTopic: topic }],
    });
    expect(created.status).toBe(201);
  }
  await vi.waitFor(
    () =>
      expect(
        mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 }).then((c) => c.endAsync()),
      ).resolves.toBeUndefined(),
    { timeout: 5000 },
  );
  return child;
}

/** The sequence numbers in the stored events' payloads (`{"epc", "seq"}`), read from the SQLite file. */
function storedSequences(dataDir: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(join(dataDir, 'gateway.db'), sqlite3.OPEN_READONLY);
    db.all<{ payload: string }>(`SELECT payload FROM events WHERE transport = 'mqtt'`, (error, rows) => {
      db.close();
      if (error) reject(error);
      else resolve(rows.map((row) => (JSON.parse(row.payload) as { seq: number }).seq));
    });
  });
}

const read = (seq: number) =>
  JSON.stringify({ epc: (0x300000000000000000000000n + BigInt(seq)).toString(16).toUpperCase(), antenna: 1, seq });

describe('MQTT acknowledgements through a SIGKILL (SPEC §15)', () => {
  it('stores every PUBACKed message exactly once and every published one at least once after the resend', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-mqtt-crash-'));
    dataDirs.push(dataDir);
    const port = await freePort();
    const first = await gatewayWithBroker(dataDir, port, 'site/reads');
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      clientId: 'crash-client',
      clean: false,
      reconnectPeriod: 200,
    });
    const ackedBeforeKill = new Set<number>();
    const acked = new Set<number>();
    let killed = false;
    let published = 0;
    const pending: Promise<void>[] = [];
    // Full speed: a window of 100 messages in flight until the process dies under them.
    const publishNext = (): Promise<void> => {
      const seq = published++;
      return client.publishAsync('site/reads', read(seq), { qos: 1 }).then(() => {
        acked.add(seq);
        if (!killed) ackedBeforeKill.add(seq);
      });
    };
    const window = async () => {
      while (!killed) await publishNext();
    };
    for (let i = 0; i < 100; i++) pending.push(window());
    await new Promise((resolve) => setTimeout(resolve, 1500));
    killed = true;
    first.process.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(ackedBeforeKill.size).toBeGreaterThan(50);
    console.log(`${ackedBeforeKill.size} MQTT messages acknowledged before SIGKILL, ${published} published`);

    // The same data folder and port: the client reconnects and resends what was not acknowledged.
    const second = await gatewayWithBroker(dataDir, port, null);
    // mqttMode is stored: the broker starts with the gateway and says where it listens.
    expect(second.stdout()).toContain(`MQTT listening on mqtt://127.0.0.1:${port}\n`);
    await Promise.all(pending);
    expect(acked.size).toBe(published);
    await client.endAsync();
    // tlsMode `both` (the default): MQTT over TLS with the gateway's certificate too.
    const mqtts = /MQTT listening on (mqtts:\/\/127\.0\.0\.1:\d+)\n/.exec(second.stdout())?.[1];
    expect(mqtts).toBeDefined();
    const secure = await mqtt.connectAsync(mqtts ?? '', { reconnectPeriod: 0, rejectUnauthorized: false });
    await secure.publishAsync('site/reads', read(999_999), { qos: 1 });
    await secure.endAsync();
    second.process.kill('SIGTERM');
    await second.exited;

    const counts = new Map<number, number>();
    for (const seq of await storedSequences(dataDir)) counts.set(seq, (counts.get(seq) ?? 0) + 1);
    const lostOrDoubled = [...ackedBeforeKill].filter((seq) => counts.get(seq) !== 1);
    expect(lostOrDoubled).toEqual([]);
    expect(counts.get(999_999)).toBe(1);
    const missing = Array.from({ length: published }, (_, seq) => seq).filter((seq) => !counts.has(seq));
    expect(missing).toEqual([]);
  });
});

describe('a site broker bridging to the gateway (README)', () => {
  it('messages published to a real Mosquitto arrive as events', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-mqtt-bridge-'));
    dataDirs.push(dataDir);
    const gatewayPort = await freePort();
    const mosquittoPort = await freePort();
    const gateway = await gatewayWithBroker(dataDir, gatewayPort, 'site/#');
    const config = join(dataDir, 'mosquitto.conf');
    writeFileSync(
      config,
      [
        `listener ${mosquittoPort} 127.0.0.1`,
        'allow_anonymous true',
        'persistence false',
        'connection gateway',
        `address 127.0.0.1:${gatewayPort}`,
        'topic site/# out 1',
        'cleansession false',
        'try_private false',
        'bridge_protocol_version mqttv311',
        '',
      ].join('\n'),
    );
    const mosquitto = spawn('/usr/sbin/mosquitto', ['-c', config], { stdio: 'ignore' });
    others.push(mosquitto);
    const publisher = await vi.waitFor(
      () => mqtt.connectAsync(`mqtt://127.0.0.1:${mosquittoPort}`, { reconnectPeriod: 0 }),
      {
        timeout: 5000,
      },
    );
    // The bridge connects on its own schedule: publish until the gateway has stored one.
    await vi.waitFor(
      async () => {
        await publisher.publishAsync('site/dock1', read(7), { qos: 1 });
        expect(await storedSequences(dataDir)).toContain(7);
      },
      { timeout: 15_000, interval: 500 },
    );
    await publisher.endAsync();
    mosquitto.kill('SIGTERM');
    gateway.process.kill('SIGTERM');
    await gateway.exited;
  });
});
