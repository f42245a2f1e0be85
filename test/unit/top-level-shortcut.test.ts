import { describe, expect, it } from 'vitest';
import { mayBeTopLevel, topLevelRouter, topLevelSegments } from '../../server/http/app';

// Decision 0406: the top-level table is asked only about paths one of its rows could match.
const handler = () => undefined;
const table = topLevelRouter([
  { path: '/_health', method: 'GET', handler },
  { path: '/token', method: 'POST', handler },
  { path: '/token/revoke', method: 'POST', handler },
  { path: '/_admin/api{/*rest}', handler },
  { path: '/_admin{/*rest}', handler },
]);

describe('the top-level shortcut', () => {
  it('names the first segment of every row', () => {
    expect(topLevelSegments(table)).toEqual(new Set(['_health', 'token', '_admin']));
  });

  it('sends a data route straight on, and anything the table could match to the table', () => {
    const segments = topLevelSegments(table);
    expect(mayBeTopLevel('/GWENDPOINTAPI/bench/asyncOpen', segments)).toBe(false);
    expect(mayBeTopLevel('/GWENDPOINTAPI/tokens/x', segments)).toBe(false);
    expect(mayBeTopLevel('/GWENDPOINTAPI/_adminx', segments)).toBe(false);
    for (const path of [
      '/GWENDPOINTAPI/token',
      '/GWENDPOINTAPI/token/',
      '/GWENDPOINTAPI/token/revoke',
      '/GWENDPOINTAPI/_health',
      '/GWENDPOINTAPI/_admin',
      '/GWENDPOINTAPI/_admin/api/settings',
      '/GWENDPOINTAPI/%5Fhealth',
      '/GWENDPOINTAPI',
      '/elsewhere',
    ])
      expect(mayBeTopLevel(path, segments), path).toBe(true);
  });

  it('asks the table about every path when a row starts with a parameter', () => {
    const open = topLevelRouter([{ path: '/:anything', method: 'GET', handler }]);
    expect(topLevelSegments(open)).toBeNull();
    expect(mayBeTopLevel('/GWENDPOINTAPI/bench/asyncOpen', null)).toBe(true);
  });
});
