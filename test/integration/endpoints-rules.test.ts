import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  expect((await gw.admin('POST', '/roles', { name: 'readers' })).status).toBe(201);
});
afterAll(() => gw.close());

const route = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  eventType: 'AllData',
  requestType: 'HttpPost',
  authType: 'noauth',
  ...extra,
});

describe('endpoints and routes (SPEC §3)', () => {
  it('creates an endpoint with defaults, ids and the derived payload type', async () => {
    const res = await gw.admin('POST', '/endpoints', {
      name: 'Dock',
      baseRoutePath: 'dock',
      routes: [route('dockIn', { payloadType: 'Nonsense' }), route('dockTags', { eventType: 'UHFTagRead' })],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Dock', baseRoutePath: 'dock', active: true });
    expect(res.body.routes).toHaveLength(2);
    expect(res.body.routes[0]).toMatchObject({
      name: 'dockIn',
      payloadType: 'GenericJson',
      active: true,
      async: false,
      roles: [],
      epcisLenient: false,
    });
    expect(res.body.routes[1].payloadType).toBe('TagReadBatch');
    expect(typeof res.body.routes[0].id).toBe('number');
    expect((await gw.admin('GET', `/endpoints/${res.body.id}`)).body).toEqual(res.body);
  });

  it.each([
    ['EpcisMessage', 'EPCISDocument'],
    ['EpcisObject', 'EPCISEvent'],
    ['GhostData', 'GhostTables'],
    ['CustomTrigger', 'TriggerCommand'],
  ])('derives payload type for %s', async (eventType, payloadType) => {
    const res = await gw.admin('POST', '/endpoints', {
      name: `P${eventType}`,
      baseRoutePath: `p${eventType}`,
      routes: [route(`r${eventType}`, { eventType })],
    });
    expect(res.status).toBe(201);
    expect(res.body.routes[0].payloadType).toBe(payloadType);
  });

  it.each(['1dock', '_dock', 'do-ck', 'do ck', '', 'a'.repeat(65)])(
    'refuses base route path %j with 400',
    async (baseRoutePath) => {
      const res = await gw.admin('POST', '/endpoints', {
        name: `X${baseRoutePath.length}`,
        baseRoutePath,
        routes: [route('bp1')],
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors).toContainEqual(expect.objectContaining({ path: '/baseRoutePath' }));
    },
  );

  it.each(['9route', 'ro.ute', 'ro ute', '-route'])('refuses route name %j with 400 at its path', async (name) => {
    const res = await gw.admin('POST', '/endpoints', {
      name: 'Bad',
      baseRoutePath: 'bad',
      routes: [route('okRoute'), route(name)],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ path: '/routes/1/name' }));
  });

  it('accepts route names with dash and underscore', async () => {
    const res = await gw.admin('POST', '/endpoints', { name: 'Dash', baseRoutePath: 'dash', routes: [route('a-b_c')] });
    expect(res.status).toBe(201);
  });

  it('needs at least one route', async () => {
    const res = await gw.admin('POST', '/endpoints', { name: 'Empty', baseRoutePath: 'empty', routes: [] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ path: '/routes' }));
  });

  it('refuses an endpoint name or base path already used, case-insensitively', async () => {
    const name = await gw.admin('POST', '/endpoints', { name: 'DOCK', baseRoutePath: 'other1', routes: [route('u1')] });
    expect(name.status).toBe(409);
    expect(name.body.code).toBe('endpoint_name_taken');
    const base = await gw.admin('POST', '/endpoints', { name: 'Other', baseRoutePath: 'DOCK', routes: [route('u2')] });
    expect(base.status).toBe(409);
    expect(base.body.code).toBe('base_route_path_taken');
  });

  it('keeps route names unique across the whole client, case-insensitively', async () => {
    const other = await gw.admin('POST', '/endpoints', {
      name: 'Yard',
      baseRoutePath: 'yard',
      routes: [route('DOCKIN')],
    });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('route_name_taken');
    // The clash names the endpoint that holds the name (issue 40.7): the technician knows where to look.
    expect(other.body.errors).toContainEqual({
      path: '/routes/0/name',
      message: 'Route name "DOCKIN" is already used by endpoint "Dock"',
    });
    expect(other.body.detail ?? other.body.message).toContain('endpoint "Dock"');
    const twice = await gw.admin('POST', '/endpoints', {
      name: 'Yard',
      baseRoutePath: 'yard',
      routes: [route('y1'), route('Y1')],
    });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('route_name_taken');
    expect(twice.body.errors).toContainEqual({
      path: '/routes/1/name',
      message: 'Route name "Y1" is used twice in this endpoint',
    });
  });

  it('frees a route name once its route is deleted', async () => {
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Free',
      baseRoutePath: 'free',
      routes: [route('freeA'), route('freeB')],
    });
    const [, b] = created.body.routes;
    expect((await gw.admin('PUT', `/endpoints/${created.body.id}`, { ...created.body, routes: [b] })).status).toBe(200);
    const reuse = await gw.admin('POST', '/endpoints', {
      name: 'Reuse',
      baseRoutePath: 'reuse',
      routes: [route('freeA')],
    });
    expect(reuse.status).toBe(201);
  });

  it('requires roles on OAuth2 routes and only there, naming existing roles', async () => {
    const none = await gw.admin('POST', '/endpoints', {
      name: 'O',
      baseRoutePath: 'o',
      routes: [route('o1', { authType: 'OAuth2' })],
    });
    expect(none.status).toBe(400);
    expect(none.body.errors).toContainEqual(expect.objectContaining({ path: '/routes/0/roles' }));
    const onBasic = await gw.admin('POST', '/endpoints', {
      name: 'O',
      baseRoutePath: 'o',
      routes: [route('o1', { authType: 'basic', roles: ['readers'] })],
    });
    expect(onBasic.status).toBe(400);
    const unknown = await gw.admin('POST', '/endpoints', {
      name: 'O',
      baseRoutePath: 'o',
      routes: [route('o1', { authType: 'OAuth2', roles: ['ghosts'] })],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ path: '/routes/0/roles/0' }));
    const ok = await gw.admin('POST', '/endpoints', {
      name: 'O',
      baseRoutePath: 'o',
      routes: [route('o1', { authType: 'OAuth2', roles: ['readers'] })],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.routes[0].roles).toEqual(['readers']);
  });

  it('allows async only with HttpPost', async () => {
    const res = await gw.admin('POST', '/endpoints', {
      name: 'A',
      baseRoutePath: 'a',
      routes: [route('a1', { requestType: 'HttpGet', async: true })],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ path: '/routes/0/async' }));
  });

  it.each([
    ['eventType', 'Telemetry'],
    ['requestType', 'HttpPut'],
    ['authType', 'Basic'],
  ])('refuses %s %j', async (field, value) => {
    const res = await gw.admin('POST', '/endpoints', {
      name: 'E',
      baseRoutePath: 'e',
      routes: [route('e1', { [field]: value })],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ path: `/routes/0/${field}` }));
  });

  it('keeps route ids on PUT and tells which external users lost a route that stopped being basic', async () => {
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Gate',
      baseRoutePath: 'gate',
      routes: [route('gateIn', { authType: 'basic' }), route('gateOut', { authType: 'basic' })],
    });
    expect(created.status).toBe(201);
    const user = await gw.admin('POST', '/external-users', {
      username: 'reader1',
      password: 'reader-pass-1',
      routes: ['gateIn', 'gateOut'],
    });
    expect(user.status).toBe(201);
    const [gateIn, gateOut] = created.body.routes;
    const res = await gw.admin('PUT', `/endpoints/${created.body.id}`, {
      ...created.body,
      routes: [{ ...gateIn, authType: 'OAuth2', roles: ['readers'] }, gateOut],
    });
    expect(res.status).toBe(200);
    expect(res.body.revokedExternalUsers).toEqual(['reader1']);
    expect(res.body.routes.map((r: { id: number }) => r.id)).toEqual([gateIn.id, gateOut.id]);
    expect((await gw.admin('GET', `/external-users/${user.body.id}`)).body.routes).toEqual(['gateOut']);
  });

  it('takes a role named twice in a route once, whatever its case', async () => {
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Twice',
      baseRoutePath: 'twice',
      routes: [route('twiceR', { authType: 'OAuth2', roles: ['readers', 'READERS', 'readers'] })],
    });
    expect(created.status).toBe(201);
    expect(created.body.routes[0].roles).toEqual(['readers']);
    const updated = await gw.admin('PUT', `/endpoints/${created.body.id}`, {
      ...created.body,
      routes: [{ ...created.body.routes[0], roles: ['admin', 'admin', 'Readers'] }],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.routes[0].roles).toEqual(['admin', 'readers']);
  });

  it('refuses one route id twice in a PUT, at the second occurrence, and changes nothing', async () => {
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Dup',
      baseRoutePath: 'dup',
      routes: [route('dupA'), route('dupB')],
    });
    const [a, b] = created.body.routes;
    const res = await gw.admin('PUT', `/endpoints/${created.body.id}`, {
      ...created.body,
      routes: [a, { ...b, id: a.id }, route('dupC')],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ path: '/routes/1/id', message: expect.any(String) }]);
    expect((await gw.admin('GET', `/endpoints/${created.body.id}`)).body).toEqual(created.body);
  });

  it('tells which external users lost a basic route that was deleted or sent again without its id', async () => {
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Lane',
      baseRoutePath: 'lane',
      routes: ['laneA', 'laneB', 'laneC', 'laneD'].map((name) => route(name, { authType: 'basic' })),
    });
    expect(created.status).toBe(201);
    const users: Record<string, number> = {};
    for (const [username, routes] of [
      ['zed', ['laneA']],
      ['amy', ['laneA', 'laneB']],
      ['bob', ['laneC']],
      ['Cat', ['laneD']],
    ] as const) {
      const user = await gw.admin('POST', '/external-users', { username, password: 'lane-pass-1', routes });
      expect(user.status).toBe(201);
      users[username] = user.body.id;
    }
    const [laneA, , laneC, laneD] = created.body.routes;
    const { id: _laneAId, ...laneAWithoutId } = laneA;
    // laneA comes back without its id (a new route), laneB is gone, laneC keeps its id, and
    // laneD keeps its id but leaves basic.
    const res = await gw.admin('PUT', `/endpoints/${created.body.id}`, {
      ...created.body,
      routes: [laneAWithoutId, laneC, { ...laneD, authType: 'noauth' }],
    });
    expect(res.status).toBe(200);
    // Each user once (amy lost two routes), sorted without regard to case.
    expect(res.body.revokedExternalUsers).toEqual(['amy', 'Cat', 'zed']);
    expect(res.body.routes[0].id).not.toBe(laneA.id);
    const routesOf = async (username: string) =>
      (await gw.admin('GET', `/external-users/${users[username]}`)).body.routes;
    expect(await routesOf('amy')).toEqual([]);
    expect(await routesOf('zed')).toEqual([]);
    expect(await routesOf('Cat')).toEqual([]);
    expect(await routesOf('bob')).toEqual(['laneC']);
    // A resubmit that keeps every id and every auth type takes nothing from anyone.
    const again = await gw.admin('PUT', `/endpoints/${created.body.id}`, { ...res.body });
    expect(again.body.revokedExternalUsers).toEqual([]);
    expect(await routesOf('bob')).toEqual(['laneC']);
  });

  it.each(['abc', '0', '-1', '1e1', '0x1', '1.0', '2147483648', '99999999999999999999'])(
    'answers id %j with the same 404 as an unknown id',
    async (id) => {
      const unknown = await gw.admin('GET', '/endpoints/99999');
      const body = { name: 'Ghost', baseRoutePath: 'ghost', routes: [route('ghostR')] };
      for (const [method, payload] of [['GET'], ['PUT', body], ['DELETE']] as const) {
        const res = await gw.admin(method, `/endpoints/${id}`, payload);
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.body).toMatchObject({ code: 'not_found', detail: unknown.body.detail });
      }
    },
  );

  it('answers 404 for unknown ids and 204 on delete', async () => {
    expect((await gw.admin('GET', '/endpoints/99999')).status).toBe(404);
    const created = await gw.admin('POST', '/endpoints', {
      name: 'Gone',
      baseRoutePath: 'gone',
      routes: [route('goneR')],
    });
    const del = await gw.admin('DELETE', `/endpoints/${created.body.id}`);
    expect(del.status).toBe(204);
    expect((await gw.admin('GET', `/endpoints/${created.body.id}`)).status).toBe(404);
  });

  it('lists endpoints as a JSON array with their routes', async () => {
    const res = await gw.admin('GET', '/endpoints');
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.find((e: { name: string }) => e.name === 'Dock').routes).toHaveLength(2);
  });
});
