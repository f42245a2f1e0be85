import { ERROR_CODES } from '../errors';
import { named, optional, s } from '../schema';

/**
 * Issue 40: the requests the gateway refused lately (kept in memory, never stored). Each names
 * who, what and why in the gateway's own words; never a body, a header value or a credential.
 */
export const REFUSED_REQUEST = named(
  'RefusedRequest',
  s.object({
    at: s.string({ format: 'date-time' }),
    source: s.string({ description: 'The client address (after trusted proxies).' }),
    method: s.string(),
    path: s.string({ description: 'The path alone, no query string; cut at 200 characters.' }),
    status: s.integer(),
    code: s.enum(ERROR_CODES),
    route: s.nullable(s.string({ description: 'The route name when the path named one, else null.' })),
    explanation: s.string({ description: 'What went wrong, in plain words.' }),
  }),
);

export const REFUSAL_QUERY = named(
  'RefusalQuery',
  s.object({
    source: optional(s.string({ description: 'Only refusals from this client address.' })),
  }),
);

export const REFUSAL_LIST = named(
  'RefusalList',
  s.object({
    items: s.array(REFUSED_REQUEST, { description: 'Newest first.' }),
    sources: s.array(s.string(), { description: 'Every source address in the log, for the filter.' }),
    capacity: s.integer({ description: 'How many refusals are kept (the oldest go first).' }),
  }),
);
