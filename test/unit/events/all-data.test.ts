import { describe, it, expect } from 'vitest';
import { validateAllData } from '../../../server/events/all-data';
import { errorsOf, valueOf } from './helpers';

describe('validateAllData', () => {
  it('returns any object or array exactly as received', () => {
    const object = { anything: [1, { nested: true }], 'odd key': null };
    const array = [1, 'two', { three: 3 }];
    expect(valueOf(validateAllData(object))).toBe(object);
    expect(valueOf(validateAllData(array))).toBe(array);
    expect(valueOf(validateAllData({}))).toEqual({});
    expect(valueOf(validateAllData([]))).toEqual([]);
  });

  it.each([['text'], [42], [true], [null]])('refuses the scalar %j at the root', (json) => {
    expect(errorsOf(validateAllData(json))).toEqual([
      { path: '', message: 'AllData requires a JSON object or array, not a scalar or null' },
    ]);
  });
});
