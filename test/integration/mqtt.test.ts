import { connect as connectSocket } from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import mqttPacket from 'mqtt-packet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { basic, json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * SPEC §15 with real MQTT clients (the `mqtt` package, and raw packets where a client library
 * would hide the wire) against the embedded broker on port 0, on both databases.
 */
let gw: TestGateway;
let url: string;
let tokenId: number;
let token: string;
const clients: MqttClient[] = [];

const READ = JSON.stringify({ epc: '3074257BF7194E4000001A85', antenna: 1, rssi: -52 });

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.gateway.mqtt.listen({ host: '127.0.0.1', port: 0, mqttsPort: 0 });
  expect(gw.gateway.mqtt.urls()).toEqual([]); // mqttMode is off by default
  await gw.admin('POST', '/roles', { name: 'readers' });
  const created = await gw.admin('POST', '/endpoints', {
    name: 'Dock',
    baseRoutePath: 'dock',
    routes: [
      {
        name: 'reads',
        eventType: 'UHFTagRead',
        requestType: 'HttpPost',
        authType: 'noauth',
        async: true,
        mqttTopic: 'dock/+/reads',
      },
      {
        name: 'readsync',
        eventType: 'UHFTagRead',
        requestType: 'HttpPost',
        authType: 'noauth',
        mqttTopic: 'dock/sync',
      },
      { name: 'inventory', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
      { name: 'secure', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic', mqttTopic: 'secure/#' },
      {
        name: 'oauth',
        eventType: 'AllData',
        requestType: 'HttpPost',
        authType: 'OAuth2',
        roles: ['readers'],
        mqttTopic: 'oauth',
      },
      { name: 'exact', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth', mqttTopic: 'dock/one/reads' },
    ],
  });
  expect(created.status).toBe(201);
  await gw.admin('POST', '/external-users', { username: 'handheld', password: 'handheld-pass', routes: ['secure'] });
  const issued = await gw.admin('POST', '/access-tokens', { name: 'rfd40', role: 'readers', expiryDate: '2999-01-01' });
  tokenId = issued.body.id;
  token = issued.body.token;
  expect((await gw.admin('PUT', '/settings', { mqttMode: 'on' })).status).toBe(200);
  [url] = gw.gateway.mqtt.urls();
  expect(url).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.endAsync(true)));
  await gw.close();
});

async function client(options: mqtt.IClientOptions = {}): Promise<MqttClient> {
  const connected = await mqtt.connectAsync(url, { reconnectPeriod: 0, clientId: `c${clients.length}`, ...options });
  clients.push(connected);
  return connected;
}

const events = async (query = '') => (await gw.admin('GET', `/events?limit=100${query}`)).body.items as any[];

describe('MQTT ingestion (SPEC §15)', () => {
  it('lists the broker in /status and /_metrics while it runs', async () => {
    const status = await gw.admin('GET', '/status');
    expect(status.body.listenUrls).toContain(url);
    expect(status.body.mqtt).toMatchObject({ mode: 'on' });
    const metrics = await (await fetch(`${gw.base}/_metrics`)).text();
    expect(metrics).toMatch(/gateway_mqtt_clients \d+/);
  });

  it('acknowledges a QoS 1 message only once its event is stored, with transport, topic and request id', async () => {
    const reader = await client({ clientId: 'fx9600-a' });
    await reader.publishAsync('dock/door1/reads', READ, { qos: 1 });
    // Acknowledged: a fresh reader of the database sees it at once.
    const [event] = await events('&route=reads');
    expect(event).toMatchObject({
      transport: 'mqtt',
      topic: 'dock/door1/reads',
      requestId: 'mqtt:fx9600-a:1',
      principal: 'anonymous',
    });
    expect(['queued', 'processed']).toContain(event.status);
  });

  it('a sync route processes before the PUBACK; the client id names a reader the payload does not', async () => {
    const reader = await client({ clientId: 'rfd40-7' });
    await reader.publishAsync('dock/sync', READ, { qos: 1 });
    const [event] = await events('&route=readsync');
    expect(event).toMatchObject({ status: 'processed', transport: 'mqtt' });
    const inventory = await json(await fetch(`${gw.base}/dock/inventory?limit=10`));
    expect(inventory.items[0]).toMatchObject({ readerId: 'rfd40-7' });
    // The reader's record (SPEC §16) is fed from MQTT as from HTTP: the same processing path.
    const record = await gw.admin('GET', '/readers/rfd40-7');
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ readerId: 'rfd40-7', state: 'online', readsTotal: 1 });
    expect(record.body.antennas).toEqual([expect.objectContaining({ antenna: 1, readsTotal: 1, lastRssi: -52 })]);
    // HTTP events say so too.
    await fetch(`${gw.base}/dock/readsync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: READ,
    });
    expect((await events('&route=readsync'))[0]).toMatchObject({ transport: 'http', topic: null });
  });

  it('routes a topic to the filter with the fewest wildcards', async () => {
    const reader = await client();
    await reader.publishAsync('dock/one/reads', '{"exact":true}', { qos: 1 });
    expect((await events('&route=exact'))[0]).toMatchObject({ topic: 'dock/one/reads' });
  });

  it('acknowledges and drops an unrouted message, and acknowledges a rejected one (kept as rejected)', async () => {
    const before = (await events()).length;
    const reader = await client();
    await reader.publishAsync('nowhere/at/all', READ, { qos: 1 });
    expect((await events()).length).toBe(before);
    await reader.publishAsync('dock/sync', 'not json', { qos: 1 });
    await reader.publishAsync('dock/sync', '{"epc":"not-hex"}', { qos: 1 });
    expect((await events('&route=readsync'))[0]).toMatchObject({ status: 'rejected' });
    const metrics = await (await fetch(`${gw.base}/_metrics`)).text();
    expect(metrics).toMatch(/gateway_mqtt_messages_total\{result="unrouted"\} [1-9]/);
    expect(metrics).toMatch(/gateway_mqtt_messages_total\{result="rejected"\} [2-9]/);
  });

  it('closes the connection of a client publishing where it may not, storing nothing', async () => {
    const before = (await events('&route=secure')).length;
    const anonymous = await client();
    const closed = new Promise<void>((resolve) => anonymous.once('close', () => resolve()));
    anonymous.publish('secure/zone', '{"a":1}', { qos: 1 });
    await closed;
    expect((await events('&route=secure')).length).toBe(before);
    const user = await client({ username: 'handheld', password: 'handheld-pass' });
    await user.publishAsync('secure/zone', '{"a":1}', { qos: 1 });
    expect((await events('&route=secure'))[0]).toMatchObject({ principal: 'external:handheld', transport: 'mqtt' });
  });

  it('takes an access token as the password; a deleted token stops working on the next PUBLISH', async () => {
    const reader = await client({ username: 'anything', password: token });
    await reader.publishAsync('oauth', '{"n":1}', { qos: 1 });
    expect((await events('&route=oauth'))[0]).toMatchObject({ principal: 'token:rfd40' });
    expect((await gw.admin('DELETE', `/access-tokens/${tokenId}`)).status).toBe(204);
    const closed = new Promise<void>((resolve) => reader.once('close', () => resolve()));
    reader.publish('oauth', '{"n":2}', { qos: 1 });
    await closed;
    expect((await events('&route=oauth')).length).toBe(1);
  });

  it("ingests a client's Will like any message when its topic is routed", async () => {
    const before = (await events('&route=exact')).length;
    const dying = await client({
      clientId: 'will-client',
      will: { topic: 'dock/one/reads', payload: Buffer.from('{"will":1}'), qos: 1, retain: true },
    });
    // Gone without DISCONNECT: the broker publishes the Will.
    dying.stream.destroy();
    await vi.waitFor(async () => expect((await events('&route=exact')).length).toBe(before + 1));
    expect((await events('&route=exact'))[0]).toMatchObject({
      payload: { will: 1 },
      requestId: expect.stringMatching(/^mqtt:will-client:/),
    });
  });

  it('refuses SUBSCRIBE with 0x80 for every filter', async () => {
    const reader = await client();
    const refused = await reader.subscribeAsync(['dock/#', 'anything'], { qos: 1 }).then(
      () => null,
      (error: { packet?: { granted?: number[] } }) => error.packet?.granted,
    );
    expect(refused).toEqual([128, 128]);
  });

  it('stores a DUP re-send of a committed message once, and acknowledges both', async () => {
    const before = (await events('&route=exact')).length;
    const acks = await rawPublishTwice('raw-dup', 'dock/one/reads', '{"dup":1}');
    expect(acks).toEqual([42, 42]);
    expect((await events('&route=exact')).length).toBe(before + 1);
  });

  it('stops and starts with mqttMode, without a restart', async () => {
    await gw.admin('PUT', '/settings', { mqttMode: 'off' });
    await vi.waitFor(() => expect(gw.gateway.mqtt.urls()).toEqual([]));
    await expect(mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 2000 })).rejects.toThrow();
    await gw.admin('PUT', '/settings', { mqttMode: 'on' });
    await vi.waitFor(() => expect(gw.gateway.mqtt.urls()).toHaveLength(1));
    // Port 0 picks a new free port at each start.
    [url] = gw.gateway.mqtt.urls();
    await (await client()).publishAsync('dock/one/reads', '{"again":1}', { qos: 1 });
  });
});

describe('route mqttTopic rules (SPEC §15)', () => {
  const endpoint = (name: string, routes: unknown[]) =>
    gw.admin('POST', '/endpoints', { name, baseRoutePath: name, routes });
  const route = (name: string, extra: Record<string, unknown>) => ({
    name,
    eventType: 'AllData',
    requestType: 'HttpPost',
    authType: 'noauth',
    ...extra,
  });

  it('refuses a filter two routes share (409), a GET route topic and malformed filters (400)', async () => {
    const taken = await endpoint('taken', [route('takenroute', { mqttTopic: 'dock/sync' })]);
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('mqtt_topic_taken');
    const get = await endpoint('getter', [route('getroute', { requestType: 'HttpGet', mqttTopic: 'x/y' })]);
    expect(get.status).toBe(400);
    for (const bad of ['a/#/b', 'a+/b', '$SYS/x', '', 'x'.repeat(257)]) {
      const res = await endpoint(`bad${bad.length}`, [route(`badroute${bad.length}`, { mqttTopic: bad })]);
      expect(res.status, bad).toBe(400);
    }
  });
});

describe('MQTT authentication against the shared lockout (SPEC §15, §10)', () => {
  it('counts wrong passwords toward the lockout shared with HTTP: CONNACK 4, then 5', async () => {
    await gw.admin('PUT', '/settings', { authFailureLimit: 2 });
    const refusal = (password: string) =>
      mqtt.connectAsync(url, { reconnectPeriod: 0, username: 'handheld', password }).then(
        () => 0,
        (error: { code?: number }) => error.code,
      );
    expect(await refusal('wrong-1')).toBe(4);
    expect(await refusal('wrong-2')).toBe(4);
    expect(await refusal('wrong-3')).toBe(4); // the failure past the limit
    expect(await refusal('handheld-pass')).toBe(5); // locked out, password not checked
    const http = await fetch(`${gw.base}/dock/secure`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic('handheld', 'handheld-pass') },
      body: '{}',
    });
    expect(http.status).toBe(429);
  });
});

/** CONNECT, then the same QoS 1 PUBLISH twice (the second with DUP) on a raw socket: the PUBACKs' ids. */
async function rawPublishTwice(clientId: string, topic: string, payload: string): Promise<number[]> {
  const { hostname, port } = new URL(url);
  const socket = connectSocket(Number(port), hostname);
  const parser = mqttPacket.parser();
  const acks: number[] = [];
  const done = new Promise<void>((resolve, reject) => {
    parser.on('packet', (packet) => {
      if (packet.cmd === 'connack') {
        const publish = { cmd: 'publish', topic, payload, qos: 1, messageId: 42, retain: false } as const;
        socket.write(mqttPacket.generate({ ...publish, dup: false }));
        socket.write(mqttPacket.generate({ ...publish, dup: true }));
      }
      if (packet.cmd === 'puback') {
        acks.push(packet.messageId ?? -1);
        if (acks.length === 2) resolve();
      }
    });
    socket.on('error', reject);
  });
  socket.on('data', (chunk) => parser.parse(chunk));
  socket.write(
    mqttPacket.generate({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: false,
      clientId,
      keepalive: 30,
    }),
  );
  await done;
  socket.destroy();
  return acks;
}
