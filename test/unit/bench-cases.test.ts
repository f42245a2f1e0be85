import { describe, expect, it } from 'vitest';
import { caseTarget, CASES, needsOwnGateway, type CaseDef } from '../../bench/cases';
import { DISTINCT_TAG_POOL, REPEATED_TAG_POOL } from '../../bench/epc-pool';
import { ROUTES } from '../../bench/gateway-setup';

const setup = { accessToken: 'token-x', basic: 'Basic eA==' };
const bases = { http: 'http://127.0.0.1:1/GWENDPOINTAPI' };

describe('bench cases', () => {
  it('has repeated- and distinct-tag cases for sync and async UHFTagRead, each on a route of its own', () => {
    const byKey = new Map(CASES.map((c) => [c.key, c]));
    expect(byKey.get('asyncOpen')?.tagPool).toBeUndefined();
    expect(byKey.get('asyncOpenDistinct')).toMatchObject({ async: true, tagPool: DISTINCT_TAG_POOL });
    expect(byKey.get('syncTagsDistinct')).toMatchObject({ async: false, tagPool: DISTINCT_TAG_POOL });
    // Stored events are counted per route: cases sharing a gateway need routes of their own.
    const routes = CASES.filter((c) => !needsOwnGateway(c)).map((c) => c.route);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('builds the target from the case: route, query, headers and pool', () => {
    const token = CASES.find((c) => c.key === 'asyncToken');
    const inventory = CASES.find((c) => c.key === 'inventory');
    if (!token || !inventory) throw new Error('cases missing');
    expect(caseTarget(token, bases, setup)).toEqual({
      url: `${bases.http}/bench/${ROUTES.asyncToken}`,
      method: 'POST',
      headers: { authorization: 'token-x' },
      tagPool: REPEATED_TAG_POOL,
    });
    expect(caseTarget(inventory, bases, setup)).toEqual({
      url: `${bases.http}/bench/${ROUTES.inventory}?limit=100`,
      method: 'GET',
      headers: undefined,
      tagPool: undefined,
    });
  });

  it('gives a case with its own scheme or settings a gateway of its own, and names a missing listener', () => {
    const https: CaseDef = {
      key: 'asyncHttps',
      route: ROUTES.asyncOpen,
      label: 'async noauth over HTTPS',
      async: true,
      method: 'POST',
      scheme: 'https',
      gatewaySettings: { tlsMode: 'self-signed', httpsPort: 0 },
    };
    expect(needsOwnGateway(https)).toBe(true);
    // The batched cases too: their bytes per read are measured on a database that holds only theirs.
    expect(CASES.filter(needsOwnGateway).map((c) => c.key)).toEqual([
      'asyncOpenHttps',
      'asyncBatch',
      'syncBatch',
      'mqttOpen',
    ]);
    expect(() => caseTarget(https, bases, setup)).toThrow(/no https listener/);
    expect(caseTarget(https, { ...bases, https: 'https://127.0.0.1:2/GWENDPOINTAPI' }, setup).url).toBe(
      `https://127.0.0.1:2/GWENDPOINTAPI/bench/${ROUTES.asyncOpen}`,
    );
  });

  it('publishes the MQTT case on a gateway of its own with the broker on, and gives it no HTTP target', () => {
    const mqtt = CASES.find((c) => c.key === 'mqttOpen');
    if (!mqtt) throw new Error('the MQTT case is missing');
    expect(mqtt).toMatchObject({ transport: 'mqtt', async: true, gatewaySettings: { mqttMode: 'on' } });
    expect(() => caseTarget(mqtt, bases, setup)).toThrow(/MQTT/);
  });
});
