import type { Context } from 'koa';
import type { Db } from '../../db';
import { EPCIS_CONTEXT, normalizeCbv, type EpcRole } from '../../events/epcis';
import { VOCABULARIES } from '../../events/epcis/cbv';
import { isUri, parseDateTime } from '../../events/epcis/util';
import {
  epcisIndexRepo,
  type EpcisIndexQuery,
  type EpcisIndexRow,
  type EpcMatch,
} from '../../repositories/epcis-index.repo';
import type { LiveRoute } from '../../intake/route-table';
import { iso } from '../../time';
import { epcisError } from './epcis-wire';

/** The EPC roles each MATCH_ parameter looks in (SPEC §17). */
const MATCH_ROLES = {
  MATCH_epc: ['epcList', 'childEPCs'],
  MATCH_parentID: ['parentID'],
  MATCH_inputEPC: ['inputEPCList'],
  MATCH_outputEPC: ['outputEPCList'],
  MATCH_anyEPC: ['epcList', 'childEPCs', 'parentID', 'inputEPCList', 'outputEPCList'],
  MATCH_epcClass: ['quantityList', 'childQuantityList'],
} as const satisfies Record<string, readonly EpcRole[]>;

const EVENT_TYPES = new Set([
  'ObjectEvent',
  'AggregationEvent',
  'TransactionEvent',
  'TransformationEvent',
  'AssociationEvent',
]);
const ACTIONS = new Set(['ADD', 'OBSERVE', 'DELETE']);

/** The EQ_ parameters and the index column list each fills. */
const EQ_LISTS = {
  eventType: 'types',
  EQ_action: 'actions',
  EQ_bizStep: 'bizSteps',
  EQ_disposition: 'dispositions',
  EQ_readPoint: 'readPoints',
  EQ_bizLocation: 'bizLocations',
  EQ_eventID: 'eventIds',
} as const;

const TIMES = ['GE_eventTime', 'LT_eventTime', 'GE_recordTime', 'LT_recordTime'] as const;
const PAGING = ['orderBy', 'orderDirection', 'eventCountLimit', 'perPage'] as const;
const KNOWN = new Set<string>([...Object.keys(EQ_LISTS), ...Object.keys(MATCH_ROLES), ...TIMES, ...PAGING]);

const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 1000;

/** A query's parameters as sent, sorted: what a page token carries and compares (SPEC §17). */
type Params = [string, string][];

/** What a `nextPageToken` holds: the query, its pinned result set, where the next page starts. */
interface Token {
  p: Params;
  /** The `seq` the first page pinned. */
  s: number;
  /** The sort key (time, seq) of the previous page's last event. */
  a: [number, number];
  /** What is left of `eventCountLimit`. */
  l?: number;
}

const badParameter = (detail: string) => epcisError('QueryParameterException', 'invalid_query', detail);

/** Koa's query object as name → one value; a repeated parameter is refused. */
function singleValues(query: Context['query']): Params {
  const params: Params = [];
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw badParameter(`${name} is given more than once; separate values with commas`);
    if (value !== undefined) params.push([name, value]);
  }
  return params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The values of a comma-separated parameter (any of them matches), none empty. */
function listOf(name: string, value: string): string[] {
  const values = value.split(',').map((v) => v.trim());
  if (values.some((v) => v === '')) throw badParameter(`${name} has an empty value`);
  return values;
}

const EPC_PATTERN = /^urn:epc:idpat:([A-Za-z0-9-]+):(.+)$/;

/**
 * An EPC parameter value: an exact URI, or an `urn:epc:idpat:` pattern whose `*` fields match
 * any value (SPEC §17), answered as the range of its fixed leading fields. For `MATCH_epcClass`
 * a pattern also matches a class written as that pattern, and an SGTIN pattern the LGTIN
 * classes of the same GTIN.
 */
function epcMatches(name: string, value: string, forClass: boolean): EpcMatch[] {
  const pattern = EPC_PATTERN.exec(value);
  if (!pattern) {
    if (!isUri(value)) throw badParameter(`${name}: ${JSON.stringify(value)} is neither a URI nor an EPC pattern`);
    return [{ exact: value }];
  }
  const [, scheme = '', fields = ''] = pattern;
  const parts = fields.split('.');
  if (parts.some((part) => part === '')) throw badParameter(`${name}: ${JSON.stringify(value)} has an empty field`);
  const star = parts.indexOf('*');
  const base = `urn:epc:id:${scheme}:`;
  const matches: EpcMatch[] = [];
  if (star === -1) matches.push({ exact: base + fields });
  else {
    const prefix =
      base +
      parts
        .slice(0, star)
        .map((part) => `${part}.`)
        .join('');
    const fixedAfter = parts.slice(star).some((part) => part !== '*');
    matches.push(fixedAfter ? { prefix, glob: base + fields } : { prefix });
  }
  if (forClass) {
    matches.push({ exact: value });
    if (scheme === 'sgtin' && star !== 0) {
      const gtin = parts.slice(0, star === -1 ? 2 : Math.min(star, 2));
      if (gtin.length === 2) matches.push({ prefix: `urn:epc:class:lgtin:${gtin.join('.')}.` });
    }
  }
  return matches;
}

/** A CBV parameter's values in their indexed form: a CBV word (any form) or a URI. */
function cbvValues(name: string, kind: 'bizStep' | 'disposition', value: string): string[] {
  return listOf(name, value).map((v) => {
    const word = normalizeCbv(kind, v);
    if (!VOCABULARIES[kind].words.has(word) && !isUri(word)) {
      throw badParameter(`${name}: ${JSON.stringify(v)} is neither a CBV ${kind} nor a URI`);
    }
    return word;
  });
}

function uriValues(name: string, value: string): string[] {
  return listOf(name, value).map((v) => {
    if (!isUri(v)) throw badParameter(`${name}: ${JSON.stringify(v)} is not a URI`);
    return v;
  });
}

function timeOf(name: string, value: string): number {
  const at = parseDateTime(value);
  if (at === null) throw badParameter(`${name} must be an RFC 3339 date-time with an offset`);
  return at;
}

function countOf(name: string, value: string, max: number): number {
  const count = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(count >= 1 && count <= max)) throw badParameter(`${name} must be an integer from 1 to ${max}`);
  return count;
}

/** The query a first page asks for, and how many events a page holds. */
interface ParsedQuery {
  index: Omit<EpcisIndexQuery, 'endpointId' | 'pin' | 'after' | 'limit'>;
  perPage: number;
  eventCountLimit?: number;
}

/** Reads the parameters of SPEC §17 (all checked: an unknown name or a bad value is a 400). */
export function parseParams(params: Params): ParsedQuery {
  const index: ParsedQuery['index'] = { matches: [], orderBy: 'recordTime', direction: 'asc' };
  let perPage = DEFAULT_PER_PAGE;
  let eventCountLimit: number | undefined;
  const given = new Set(params.map(([name]) => name));
  for (const [name, value] of params) {
    if (!KNOWN.has(name)) throw badParameter(`Unknown query parameter ${name}`);
    if (name in MATCH_ROLES) {
      const roles = MATCH_ROLES[name as keyof typeof MATCH_ROLES];
      const values = listOf(name, value).flatMap((v) => epcMatches(name, v, name === 'MATCH_epcClass'));
      index.matches.push({ roles, values });
      continue;
    }
    switch (name) {
      case 'eventType':
        index.types = listOf(name, value).map((v) => {
          if (!EVENT_TYPES.has(v)) throw badParameter(`eventType: ${JSON.stringify(v)} is not an EPCIS event type`);
          return v;
        });
        break;
      case 'EQ_action':
        index.actions = listOf(name, value).map((v) => {
          if (!ACTIONS.has(v)) throw badParameter(`EQ_action: ${JSON.stringify(v)} is not ADD, OBSERVE or DELETE`);
          return v;
        });
        break;
      case 'EQ_bizStep':
        index.bizSteps = cbvValues(name, 'bizStep', value);
        break;
      case 'EQ_disposition':
        index.dispositions = cbvValues(name, 'disposition', value);
        break;
      case 'EQ_readPoint':
      case 'EQ_bizLocation':
      case 'EQ_eventID':
        index[EQ_LISTS[name]] = uriValues(name, value);
        break;
      case 'GE_eventTime':
        index.eventTime = { ...index.eventTime, ge: timeOf(name, value) };
        break;
      case 'LT_eventTime':
        index.eventTime = { ...index.eventTime, lt: timeOf(name, value) };
        break;
      case 'GE_recordTime':
        index.recordTime = { ...index.recordTime, ge: timeOf(name, value) };
        break;
      case 'LT_recordTime':
        index.recordTime = { ...index.recordTime, lt: timeOf(name, value) };
        break;
      case 'orderBy':
        if (value !== 'eventTime' && value !== 'recordTime') {
          throw badParameter('orderBy must be eventTime or recordTime');
        }
        index.orderBy = value;
        break;
      case 'orderDirection':
        if (value !== 'ASC' && value !== 'DESC') throw badParameter('orderDirection must be ASC or DESC');
        index.direction = value === 'ASC' ? 'asc' : 'desc';
        break;
      case 'eventCountLimit':
        if (!given.has('orderBy')) throw badParameter('eventCountLimit needs orderBy');
        eventCountLimit = countOf(name, value, 1_000_000_000);
        break;
      case 'perPage':
        perPage = countOf(name, value, MAX_PER_PAGE);
        break;
    }
  }
  return { index, perPage, ...(eventCountLimit === undefined ? {} : { eventCountLimit }) };
}

const encodeToken = (token: Token): string => Buffer.from(JSON.stringify(token)).toString('base64url');

function decodeToken(text: string): Token {
  const bad = () => badParameter('nextPageToken is not a token this repository handed out');
  let token: unknown;
  try {
    token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const t = token as Partial<Token> | null;
  const isPair = (v: unknown): v is [string, string] =>
    Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';
  if (
    typeof t !== 'object' ||
    t === null ||
    !Array.isArray(t.p) ||
    !t.p.every(isPair) ||
    !Number.isSafeInteger(t.s) ||
    !Array.isArray(t.a) ||
    t.a.length !== 2 ||
    !t.a.every((n) => Number.isSafeInteger(n)) ||
    (t.l !== undefined && !(Number.isSafeInteger(t.l) && t.l > 0))
  ) {
    throw bad();
  }
  return t as Token;
}

/** The query string of a parameter list (the `Link` of the next page). */
const queryString = (params: Params): string =>
  params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');

/**
 * A stored event's JSON with its `recordTime` (SPEC §17). The stored text is an object that the
 * gateway wrote itself, so the member is added to the text; an event whose text mentions
 * `"recordTime"` (a client may have sent one, which the repository's own replaces) is parsed.
 */
function withRecordTime(row: EpcisIndexRow): string {
  const text = row.payload;
  const end = text.length - 1;
  if (text[end] === '}' && end > 1 && !text.includes('"recordTime"')) {
    return `${text.slice(0, end)},"recordTime":"${iso(row.recordTime)}"}`;
  }
  const event = JSON.parse(text) as Record<string, unknown>;
  event.recordTime = iso(row.recordTime);
  return JSON.stringify(event);
}

/** An EPCISQueryDocument's text before its `creationDate`'s value, and between that and its events. */
const DOCUMENT_HEAD = JSON.stringify({
  '@context': [EPCIS_CONTEXT],
  type: 'EPCISQueryDocument',
  schemaVersion: '2.0',
  creationDate: '',
}).slice(0, -2);
const EVENTS_HEAD = '","epcisBody":{"queryResults":{"queryName":"SimpleEventQuery","resultsBody":{"eventList":[';

/**
 * An EPCISQueryDocument of these events (SPEC §17), as the bytes of the answer: the events' stored
 * JSON goes in as it is, neither parsed nor written again (a page of 100 events cost the main
 * thread more that way than its query did), and the text is encoded once (a string body is
 * measured for its length, then encoded).
 */
function queryDocument(rows: EpcisIndexRow[], now: number): Buffer {
  return Buffer.from(`${DOCUMENT_HEAD}${iso(now)}${EVENTS_HEAD}${rows.map(withRecordTime).join(',')}]}}}}`);
}

/** An EPCIS answer's body (`queryDocument`), typed as `ctx.type = 'application/json'` would, without its lookup. */
function sendDocument(ctx: Context, body: Buffer): void {
  ctx.set('Content-Type', 'application/json; charset=utf-8');
  ctx.body = body;
}

/**
 * `GET Q/events` (SPEC §17): a page of the endpoint's stored EPCIS events. A first page pins the
 * result set to the index rows written so far (`seq`); its token carries that pin, the query and
 * the last sort key, so later pages neither gain nor lose events stored meanwhile. A token may
 * come alone or with exactly the parameters it was issued for; any other parameter is a 400.
 */
export async function queryEvents(ctx: Context, db: Db, live: LiveRoute, now: number): Promise<void> {
  const sent = singleValues(ctx.query);
  const tokenText = sent.find(([name]) => name === 'nextPageToken')?.[1];
  const others = sent.filter(([name]) => name !== 'nextPageToken');
  let params = others;
  let token: Token | undefined;
  if (tokenText !== undefined) {
    token = decodeToken(tokenText);
    if (others.length > 0 && JSON.stringify(others) !== JSON.stringify(token.p)) {
      throw badParameter('nextPageToken continues the query it came from: send it alone');
    }
    params = token.p;
  }
  const parsed = parseParams(params);
  const left = token ? token.l : parsed.eventCountLimit;
  const take = Math.min(parsed.perPage, left ?? Infinity);
  // A first page pins the rows it sees (its statement reports the newest `seq`); later pages keep that pin.
  // A full page and one more, also when eventCountLimit leaves fewer: one statement text per perPage.
  const { rows, pin } = await epcisIndexRepo.page(db.reads, {
    ...parsed.index,
    endpointId: live.endpoint.id,
    limit: parsed.perPage + 1,
    ...(token ? { pin: token.s, after: { time: token.a[0], seq: token.a[1] } } : {}),
  });
  const page = rows.slice(0, take);
  const last = page[page.length - 1];
  const more = rows.length > take && (left === undefined || left > take) && last !== undefined;
  if (more) {
    const next: Token = {
      p: params,
      s: pin,
      a: [parsed.index.orderBy === 'eventTime' ? last.eventTime : last.recordTime, last.seq],
      ...(left === undefined ? {} : { l: left - take }),
    };
    const link = queryString([...params, ['nextPageToken', encodeToken(next)]]);
    ctx.set('Link', `<${ctx.path}?${link}>; rel="next"`);
  }
  sendDocument(ctx, queryDocument(page, now));
}

/** `GET Q/events/<eventID>` (SPEC §17): the document holding that one event; unknown → 404. */
export async function queryOneEvent(ctx: Context, db: Db, live: LiveRoute, eventId: string, now: number) {
  const sent = singleValues(ctx.query);
  if (sent.length > 0) throw badParameter(`Unknown query parameter ${sent[0]?.[0] ?? ''}`);
  const { rows } = await epcisIndexRepo.page(db.reads, {
    endpointId: live.endpoint.id,
    pin: Number.MAX_SAFE_INTEGER,
    eventIds: [eventId],
    matches: [],
    orderBy: 'recordTime',
    direction: 'asc',
    limit: 1,
  });
  if (rows.length === 0) {
    throw epcisError('NoSuchNameException', 'not_found', 'No EPCIS event with this eventID is stored here');
  }
  sendDocument(ctx, queryDocument(rows, now));
}
