import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../server/contract/errors';
import { OPERATION_NAMES } from '../../server/contract/operations';
import { ADMIN_ROUTES } from '../../server/http/routes/admin.routes';
import { VERSION } from '../../server/version';
import { createSecrets } from '../helpers/secrets-fixture';
import { json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;
let doc: any;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every `{$ref}` in the document, with where it was found. */
function refs(value: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => refs(item, `${at}/${i}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [{ at, ref: child }] : refs(child, `${at}/${key}`),
  );
}

const resolve = (ref: string): unknown =>
  ref
    .slice(2)
    .split('/')
    .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

const deref = (node: any): any => (node?.$ref ? deref(resolve(node.$ref)) : node);

const operations = (): { path: string; method: string; operation: any; item: any }[] =>
  Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method], item })),
  );

beforeAll(async () => {
  gw = await startTestGateway();
  const res = await fetch(`${gw.base}/_openapi.json`);
  expect(res.status).toBe(200);
  doc = await json(res);
});
afterAll(() => gw.close());

describe('GET /_openapi.json', () => {
  it('answers JSON without credentials, with a request id, the same document every time', async () => {
    const res = await fetch(`${gw.base}/_openapi.json`, { headers: { 'x-request-id': 'doc-1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
    expect(res.headers.get('x-request-id')).toBe('doc-1');
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(doc);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: VERSION });
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/GWENDPOINTAPI' })]);
  });

  it('documents every admin operation at the method and path of the router table', () => {
    for (const [operation, route] of Object.entries(ADMIN_ROUTES)) {
      const path = `/_admin/api${route.path.replace(/:(\w+)/g, '{$1}')}`;
      expect(doc.paths[path]?.[route.method]?.operationId, `${operation}: ${route.method} ${path}`).toBe(operation);
      expect(doc.paths[path][route.method].security).toEqual([{ bearerAuth: [] }]);
    }
    // The table covers the contract (tsc sees to that); the document covers both, and nothing else.
    const documented = operations()
      .filter(({ path }) => path.startsWith('/_admin/api/'))
      .map(({ operation }) => operation.operationId as string);
    expect(documented.sort()).toEqual([...OPERATION_NAMES].sort());
    expect(doc.paths['/_admin/api/endpoints'].post.responses['201']).toBeDefined();
    expect(doc.paths['/_admin/api/endpoints/{id}'].delete.responses['204']).toBeDefined();
    expect(doc.paths['/_admin/api/backup/export'].post.responses['200'].content).toHaveProperty(
      'application/octet-stream',
    );
    expect(doc.paths['/_admin/api/endpoints'].post.requestBody).toBeDefined();
    expect(doc.paths['/_admin/api/access-tokens/{id}/regenerate'].post.requestBody).toBeUndefined();
  });

  it('documents the data plane, /token and the gateway paths', () => {
    const expected: Record<string, string[]> = {
      '/{base}/{route}': ['get', 'post'],
      '/{base}/{route}/receipts/{id}': ['get'],
      '/{base}/{route}/capture': ['post', 'options'],
      '/{base}/{route}/capture/{captureID}': ['get', 'options'],
      '/{base}/{route}/events': ['get', 'options'],
      '/{base}/{route}/events/{eventID}': ['get'],
      '/token': ['post'],
      '/_health': ['get'],
      '/_metrics': ['get'],
      '/_openapi.json': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(
        METHODS.filter((method) => doc.paths[path]?.[method]),
        path,
      ).toEqual(methods);
    }
    const submit = doc.paths['/{base}/{route}'].post;
    expect(Object.keys(submit.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '403', '404', '405', '413', '415', '422', '429', '503']),
    );
    expect(submit.security).toEqual(
      expect.arrayContaining([{ basicAuth: [] }, { bearerAuth: [] }, { accessToken: [] }, {}]),
    );
    const filters = doc.paths['/{base}/{route}'].get.parameters.map((p: any) => deref(p).name);
    expect(filters).toEqual(
      expect.arrayContaining(['since', 'until', 'limit', 'cursor', 'epc', 'bizStep', 'table', 'trigger']),
    );
    for (const path of ['/_health', '/_metrics', '/_openapi.json']) expect(doc.paths[path].get.security).toEqual([]);
    const query = doc.paths['/{base}/{route}/events'].get.parameters.map((p: any) => deref(p).name);
    expect(query).toEqual(
      expect.arrayContaining([
        'eventType',
        'GE_eventTime',
        'LT_recordTime',
        'EQ_bizStep',
        'MATCH_anyEPC',
        'MATCH_epcClass',
        'perPage',
        'nextPageToken',
      ]),
    );
  });

  it('describes the security schemes and the problem shape the gateway really answers with', async () => {
    expect(doc.components.securitySchemes).toMatchObject({
      basicAuth: { type: 'http', scheme: 'basic' },
      bearerAuth: { type: 'http', scheme: 'bearer' },
      accessToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
    });
    const problem = doc.components.schemas.Problem;
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']));
    expect(Object.keys(problem.properties)).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'errors']),
    );
    expect(problem.properties.code.enum).toEqual([...ERROR_CODES]);
    // A real refusal has exactly the documented members.
    const refused = await fetch(`${gw.base}/nowhere/atAll`);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    const body = await json(refused);
    for (const key of Object.keys(body)) expect(problem.properties, key).toHaveProperty(key);
    for (const key of problem.required) expect(body, key).toHaveProperty(key);
  });

  it('is well-formed: references resolve, path templates are parameters, operation ids are unique', () => {
    for (const { at, ref } of refs(doc)) {
      expect(ref, at).toMatch(/^#\//);
      expect(resolve(ref), `${at} → ${ref}`).toBeDefined();
    }
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, operation, item } of operations()) {
      const declared = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        .map(deref)
        .filter((parameter: any) => parameter.in === 'path');
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(declared.map((parameter: any) => parameter.name).sort(), `${method} ${path}`).toEqual(templated.sort());
      for (const parameter of declared) expect(parameter.required).toBe(true);
      expect(Object.keys(operation.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(status).toMatch(/^[1-5]\d\d$/);
        expect(deref(response).description, `${method} ${path} ${status}`).toEqual(expect.any(String));
      }
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
      }
    }
  });

  it('answers HEAD without a body', async () => {
    const head = await fetch(`${gw.base}/_openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(head.headers.get('x-request-id')).toMatch(/.+/);
    expect(await head.text()).toBe('');
  });

  it('carries no secret and none of the configuration', async () => {
    const secrets = await createSecrets(gw);
    const body = await (await fetch(`${gw.base}/_openapi.json`)).text();
    for (const secret of secrets) expect(body, secret).not.toContain(secret);
    // Data routes appear as templates only, never by their configured names.
    for (const name of ['Vault', 'vault', 'vaultDoor']) expect(body).not.toContain(name);
  });
});
