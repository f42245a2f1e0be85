import { describe, expect, it } from 'vitest';
import type { Destination } from '../../server/contract/dto';
import {
  blankDestination,
  destinationInput,
  destinationToDraft,
  newHeaderRow,
} from '../../renderer/src/lib/destination-draft';
import { answerText, destinationWarnings, inUseText } from '../../renderer/src/lib/destination-text';

const stored: Destination = {
  id: 4,
  name: 'WMS',
  kind: 'http',
  url: 'https://wms.example/ingest',
  headers: { 'X-Site': 'dock-3' },
  auth: { type: 'basic', username: 'gw' },
  timeoutMs: 5000,
  batchMaxEvents: 10,
  batchMaxWaitMs: 0,
  maxRetryAgeSeconds: 3600,
  tlsVerify: true,
  caCertificatePem: null,
  active: true,
  createdDate: '2026-11-25T10:00:00.000Z',
  status: {
    state: 'healthy',
    backlog: 0,
    oldestPendingAt: null,
    deliveredLastMinute: 0,
    lastError: null,
    nextAttemptAt: null,
  },
  routes: ['reads'],
};

describe('destination form: what Submit sends', () => {
  it('leaves a password typed as nothing out, so the gateway keeps the stored one', () => {
    const input = destinationInput(destinationToDraft(stored));
    expect(input.auth).toEqual({ type: 'basic', username: 'gw' });
    expect(input.headers).toEqual({ 'X-Site': 'dock-3' });
    expect(destinationInput({ ...destinationToDraft(stored), password: 'new' }).auth).toEqual({
      type: 'basic',
      username: 'gw',
      password: 'new',
    });
  });

  it('drops wholly empty header rows, keeps a nameless one for the gateway to refuse, and leaves emptied numbers to the defaults', () => {
    const draft = {
      ...blankDestination(),
      headers: [newHeaderRow(), newHeaderRow('', 'orphan'), newHeaderRow(' X-A ', ' 1 ')],
      timeoutMs: null,
      caCertificatePem: '  ',
    };
    const input = destinationInput(draft);
    expect(input.headers).toEqual({ '': 'orphan', 'X-A': '1' });
    expect(input).not.toHaveProperty('timeoutMs');
    expect(input.batchMaxEvents).toBe(100);
    expect(input.caCertificatePem).toBeNull();
  });
});

describe('destination wording', () => {
  it('warns once a backlog passes 80 % of maxOutboxItems, and when a destination is failing', () => {
    const line = (backlog: number, state: 'healthy' | 'failing' = 'healthy') => ({
      id: 1,
      name: 'WMS',
      state,
      backlog,
      oldestPendingAt: null,
      lastError: null,
      routeCount: 1,
    });
    expect(destinationWarnings([line(800)], 1000)).toEqual([]);
    expect(destinationWarnings([line(801)], 1000)[0]).toMatch(
      /^Outbox almost full: “WMS” holds 801 of 1,000 items \(80 %\)/,
    );
    expect(destinationWarnings([line(5000)], null)).toEqual([]);
    expect(destinationWarnings([line(0, 'failing')], 1000)).toEqual([
      '“WMS” is failing: deliveries keep failing. See Destinations for its last error.',
    ]);
  });

  it('names the routes that keep a destination from being deleted', () => {
    expect(inUseText('WMS', [{ kind: 'route', id: 1, name: 'reads' }])).toBe(
      '“WMS” still receives the events of route “reads”. Remove it from that route under Endpoints first, then delete it.',
    );
    expect(
      inUseText('WMS', [
        { kind: 'route', id: 1, name: 'a' },
        { kind: 'route', id: 2, name: 'b' },
      ]),
    ).toContain('routes “a”, “b”. Remove it from those routes');
  });

  it('says a receiver’s answer once', () => {
    expect(answerText(400, 'HTTP 400')).toBe('HTTP 400');
    expect(answerText(503, 'Service busy')).toBe('HTTP 503: Service busy');
    expect(answerText(null, 'connect ECONNREFUSED 127.0.0.1:9')).toBe('connect ECONNREFUSED 127.0.0.1:9');
    expect(answerText(null, null)).toBe('—');
  });
});
