import { describe, expect, it } from 'vitest';
import { ADMIN_HTTP_ROUTES } from '../../server/contract/admin-routes';
import { httpRequestOf } from '../../renderer/src/lib/http-request';

describe('web admin transport: one request per contract call, laid out as the route table says', () => {
  it('puts the id of an idAndQuery route in the path and the rest in the query string', () => {
    expect(httpRequestOf(ADMIN_HTTP_ROUTES.listDeadLetters, { id: 7, limit: 50, cursor: '123' })).toEqual({
      method: 'GET',
      url: '/destinations/7/dead-letters?limit=50&cursor=123',
      body: undefined,
    });
    expect(httpRequestOf(ADMIN_HTTP_ROUTES.listDeadLetters, { id: 7 }).url).toBe('/destinations/7/dead-letters');
  });

  it('sends a JSON body with a DELETE whose input is idAndBody (discarding chosen dead letters)', () => {
    const request = httpRequestOf(ADMIN_HTTP_ROUTES.discardDeadLetters, { id: 3, ids: [11, 12] });
    expect(request.method).toBe('DELETE');
    expect(request.url).toBe('/destinations/3/dead-letters');
    expect(JSON.parse(request.body ?? 'null')).toMatchObject({ ids: [11, 12] });
  });

  it('sends no body with a DELETE by id, and keeps list filters in the query', () => {
    expect(httpRequestOf(ADMIN_HTTP_ROUTES.deleteDestination, { id: 3 })).toEqual({
      method: 'DELETE',
      url: '/destinations/3',
      body: undefined,
    });
    expect(httpRequestOf(ADMIN_HTTP_ROUTES.listAudit, { limit: 10, cursor: '' }).url).toBe('/audit?limit=10');
  });

  it('posts the body of a body or idAndBody route, and escapes the id in the path', () => {
    const retry = httpRequestOf(ADMIN_HTTP_ROUTES.retryDeadLetters, { id: 3 });
    expect(retry).toMatchObject({ method: 'POST', url: '/destinations/3/dead-letters/retry' });
    expect(JSON.parse(retry.body ?? 'null')).toEqual({ id: 3 });
    expect(httpRequestOf(ADMIN_HTTP_ROUTES.getEvent, { id: 'a/b' }).url).toBe('/events/a%2Fb');
    expect(httpRequestOf(ADMIN_HTTP_ROUTES.regenerateDestinationSecret, { id: 4 })).toEqual({
      method: 'POST',
      url: '/destinations/4/regenerate',
      body: '{}',
    });
  });
});
