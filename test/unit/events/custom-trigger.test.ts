import { describe, it, expect } from 'vitest';
import { normalizeCustomTrigger } from '../../../server/events/custom-trigger';
import type { TriggerEvent } from '../../../server/events/custom-trigger';
import { CONTEXT, errorsOf, valueOf } from './helpers';

const trigger = (json: unknown): TriggerEvent => valueOf(normalizeCustomTrigger(json, CONTEXT));
const errors = (json: unknown) => errorsOf(normalizeCustomTrigger(json, CONTEXT));

describe('normalizeCustomTrigger: valid bodies', () => {
  it('keeps every field that is sent, with occurredAt normalized to UTC', () => {
    const json = {
      trigger: 'door.open',
      source: 'plc-7',
      occurredAt: '2026-03-02T09:20:00.5+01:00',
      params: { door: 4 },
    };
    expect(trigger(json)).toEqual<TriggerEvent>({
      trigger: 'door.open',
      source: 'plc-7',
      occurredAt: '2026-03-02T08:20:00.500Z',
      params: { door: 4 },
    });
  });

  it('defaults source to the principal, occurredAt to the receive time and params to {}', () => {
    expect(trigger({ trigger: 'Start_Shift-1' })).toEqual<TriggerEvent>({
      trigger: 'Start_Shift-1',
      source: CONTEXT.principal,
      occurredAt: new Date(CONTEXT.receivedAt).toISOString(),
      params: {},
    });
  });

  it('treats optional fields sent as null as absent', () => {
    expect(trigger({ trigger: 't', source: null, occurredAt: null, params: null })).toMatchObject({
      source: CONTEXT.principal,
      params: {},
    });
  });

  it('accepts a 64-character trigger name', () => {
    expect(trigger({ trigger: 'a'.repeat(64) }).trigger).toHaveLength(64);
  });
});

describe('normalizeCustomTrigger: errors', () => {
  it('requires the body to be an object', () => {
    for (const json of [[{ trigger: 't' }], 'door.open', null]) {
      expect(errors(json)).toEqual([{ path: '', message: expect.stringMatching(/JSON object/) as string }]);
    }
  });

  it('requires trigger', () => {
    expect(errors({ params: {} })).toEqual([{ path: '/trigger', message: 'trigger is required' }]);
  });

  it.each([['1start'], ['has space'], ['a'.repeat(65)], ['semi;colon'], [''], [42]])('refuses trigger %j', (value) => {
    expect(errors({ trigger: value }).map((error) => error.path)).toEqual(['/trigger']);
  });

  it('requires source to be a non-empty string when present', () => {
    expect(errors({ trigger: 't', source: 7 })[0]?.path).toBe('/source');
    expect(errors({ trigger: 't', source: '' })[0]?.path).toBe('/source');
  });

  it('reads an occurredAt without an offset in the gateway time zone', () => {
    // CONTEXT's zone is Europe/Berlin: 08:20 there on 2 March is 07:20 UTC.
    expect(trigger({ trigger: 't', occurredAt: '2026-03-02T08:20:00' }).occurredAt).toBe('2026-03-02T07:20:00.000Z');
  });

  it.each([['2026-03-02'], ['2026-03-02T25:20:00'], ['next tuesday'], [1_772_439_600_000]])(
    'refuses occurredAt %j',
    (value) => {
      expect(errors({ trigger: 't', occurredAt: value })).toEqual([
        { path: '/occurredAt', message: expect.stringMatching(/ISO 8601/) as string },
      ]);
    },
  );

  it.each([[[1, 2]], ['a=1'], [3], [true]])('refuses params %j', (value) => {
    expect(errors({ trigger: 't', params: value })).toEqual([
      { path: '/params', message: 'params must be a JSON object' },
    ]);
  });

  it('accepts unknown keys but warns about each at its path (a misspelt param shows)', () => {
    const result = normalizeCustomTrigger({ trigger: 't', param: {}, 'a/b': 1 }, CONTEXT);
    expect(result.ok && result.warnings).toEqual([
      { path: '/param', message: expect.stringMatching(/^Unknown field "param" ignored/) as string },
      { path: '/a~1b', message: expect.stringMatching(/^Unknown field "a\/b" ignored/) as string },
    ]);
    expect(trigger({ trigger: 't', param: {} }).params).toEqual({});
  });

  it('reports every problem at once', () => {
    expect(errors({ trigger: '9', occurredAt: 'x', params: [] }).map((error) => error.path)).toEqual([
      '/trigger',
      '/occurredAt',
      '/params',
    ]);
  });
});
