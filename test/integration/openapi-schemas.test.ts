import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_INPUTS, ADMIN_ROUTES, FILE_RESULTS } from '../../server/http/routes/admin.routes';
import { json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;
let doc: any;
let ajv: Ajv2020;

const ADMIN = '/_admin/api';
const DOC_ID = 'gateway-openapi';

const pathOf = (routerPath: string): string => `${ADMIN}${routerPath.replace(/:(\w+)/g, '{$1}')}`;
const pointer = (...parts: string[]): string =>
  parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const resolve = (ref: string): any =>
  ref
    .slice(2)
    .split('/')
    .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
const deref = (node: any): any => (node?.$ref ? deref(resolve(node.$ref)) : node);

/** A schema that says something: a type, members, a choice or a constant, after its `$ref`. */
function describesSomething(schema: unknown): boolean {
  const target = deref(schema);
  if (target === null || typeof target !== 'object') return false;
  return ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'enum', 'const'].some((key) => key in target);
}

/** Checks `value` against the schema at `at` inside the served document (refs resolve there). */
function check(at: string, value: unknown): void {
  const validate = ajv.getSchema(`${DOC_ID}#/${at}`);
  if (!validate) throw new Error(`No schema at ${at}`);
  const valid = validate(value);
  expect(validate.errors ?? [], `${at}\n${JSON.stringify(value).slice(0, 400)}`).toEqual([]);
  expect(valid).toBe(true);
}

const responseSchema = (method: string, routerPath: string, status: number): string =>
  pointer('paths', pathOf(routerPath), method, 'responses', String(status), 'content', 'application/json', 'schema');
const requestSchema = (method: string, routerPath: string): string =>
  pointer('paths', pathOf(routerPath), method, 'requestBody', 'content', 'application/json', 'schema');

/** Calls the admin API, checks the body sent against the request schema and the answer against the response schema. */
async function call(method: 'GET' | 'POST' | 'PUT', path: string, status: number, body?: unknown) {
  // `/roles/7` is documented as `/roles/{id}` (`/roles/:id` in the router's table).
  const template = Object.values(ADMIN_ROUTES).find(
    (route) =>
      route.method === method.toLowerCase() && new RegExp(`^${route.path.replace(':id', '[^/]+')}$`).test(path),
  )?.path;
  if (template === undefined) throw new Error(`No admin route for ${method} ${path}`);
  if (body !== undefined) check(requestSchema(method.toLowerCase(), template), body);
  const answer = await gw.admin(method, path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  check(responseSchema(method.toLowerCase(), template, status), answer.body);
  return answer.body;
}

beforeAll(async () => {
  gw = await startTestGateway();
  doc = await json(await fetch(`${gw.base}/_openapi.json`));
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The whole document as one schema resource, so `#/components/...` refs resolve as served.
  ajv.addSchema(doc, DOC_ID);
});
afterAll(() => gw.close());

describe('/_openapi.json schemas', () => {
  it('is a valid OpenAPI 3.1 document (the official 3.1 schema, shipped in the validator package)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors ?? []).slice(0, 1000)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('gives every admin operation a request schema (body or query) and a response schema', () => {
    for (const [operation, route] of Object.entries(ADMIN_ROUTES)) {
      const op = doc.paths[pathOf(route.path)][route.method];
      const label = `${operation}: ${route.method} ${route.path}`;
      const sendsBody = route.input === ADMIN_INPUTS.body || route.input === ADMIN_INPUTS.idAndBody;
      const sendsQuery = route.input === ADMIN_INPUTS.query || route.input === ADMIN_INPUTS.idAndQuery;
      if (sendsBody) {
        expect(describesSomething(op.requestBody?.content?.['application/json']?.schema), label).toBe(true);
        expect(deref(op.requestBody.content['application/json'].schema).type, label).toBe('object');
      } else expect(op.requestBody, label).toBeUndefined();
      const queries = (op.parameters ?? []).map(deref).filter((parameter: any) => parameter.in === 'query');
      if (sendsQuery) {
        expect(queries.length, label).toBeGreaterThan(0);
        for (const parameter of queries)
          expect(describesSomething(parameter.schema), `${label} ?${parameter.name}`).toBe(true);
      } else expect(queries, label).toEqual([]);

      const status = String(route.status ?? 200);
      const success = deref(op.responses[status]);
      if (route.status === 204) expect(success.content, label).toBeUndefined();
      else if (FILE_RESULTS.has(operation as never))
        expect(Object.keys(success.content), label).toEqual(['application/octet-stream']);
      else expect(describesSomething(success.content?.['application/json']?.schema), label).toBe(true);

      for (const [code, response] of Object.entries(op.responses)) {
        if (Number(code) < 400) continue;
        expect(deref(response).content['application/problem+json'].schema, `${label} ${code}`).toEqual({
          $ref: '#/components/schemas/Problem',
        });
      }
    }
  });

  it('names the contract schemas in components.schemas and refers to them', () => {
    for (const name of ['Endpoint', 'EndpointInput', 'Role', 'RoleInput', 'User', 'Settings', 'SettingsInput']) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    expect(doc.paths[`${ADMIN}/roles`].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RoleInput',
    });
    expect(doc.paths[`${ADMIN}/roles`].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Role' },
    });
  });

  it('describes what the running gateway really answers, and accepts what it really takes', async () => {
    const role = await call('POST', '/roles', 201, { name: 'scanner', description: 'Handhelds' });
    await call('GET', '/roles', 200);
    await call('PUT', `/roles/${role.id}`, 200, { name: 'scanner', description: 'Handheld scanners' });
    const endpoint = await call('POST', '/endpoints', 201, {
      name: 'Dock',
      baseRoutePath: 'dock',
      routes: [
        { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'OAuth2', roles: ['scanner'] },
        { name: 'gate', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic', async: true },
      ],
    });
    await call('GET', '/endpoints', 200);
    await call('POST', '/external-users', 201, {
      username: 'gate_reader',
      password: 'gate-password-1',
      routes: ['gate'],
    });
    await call('GET', '/external-users', 200);
    const update = await call('PUT', `/endpoints/${endpoint.id}`, 200, {
      name: 'Dock',
      baseRoutePath: 'dock',
      routes: [
        {
          id: endpoint.routes[0].id,
          name: 'reads',
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
        },
      ],
    });
    await call('POST', '/users', 201, { username: 'ops', password: 'ops-password-1', roles: ['scanner'] });
    await call('GET', '/users', 200);
    expect(update.revokedExternalUsers).toEqual(['gate_reader']);
    const token = await call('POST', '/access-tokens', 201, {
      name: 'reader',
      role: 'scanner',
      expiryDate: '2999-12-31',
    });
    await call('POST', `/access-tokens/${token.id}/regenerate`, 200);
    await call('GET', '/access-tokens', 200);
    await call('GET', '/settings', 200);
    await call('PUT', '/settings', 200, { retentionDays: 60, tlsMode: 'off' });
    await fetch(`${gw.base}/dock/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
    });
    const events = await call('GET', '/events', 200);
    expect(events.items.length).toBeGreaterThan(0);
    await call('GET', `/events/${events.items[0].id}`, 200);
    await call('GET', '/audit', 200);
    await call('GET', '/status', 200);
    await call('GET', '/status/traffic', 200);
  });

  it('catches a schema that drifted from the answer', () => {
    // The check above can fail: an answer missing a required member is refused.
    expect(() => check(responseSchema('get', '/settings', 200), { port: 8080 })).toThrow();
  });
});
