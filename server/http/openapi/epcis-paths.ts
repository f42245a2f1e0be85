import { jsonResponse, ref, withRequestId, type Json } from './components';

/*
 * The EPCIS 2.0 repository paths of EpcisObject routes (SPEC §17): GS1's REST binding for
 * capture and the SimpleEventQuery, under the route's own URL and authentication.
 */

const problem = (name: string): Json => ref('responses', name);
const SECURITY = [{ basicAuth: [] }, { bearerAuth: [] }, { accessToken: [] }, {}];
const VERSION_HEADERS = {
  'GS1-EPCIS-Version': { schema: { const: '2.0.0' } },
  'GS1-CBV-Version': { schema: { const: '2.0.0' } },
};
const LIMIT_HEADERS = {
  'GS1-EPCIS-Capture-Limit': { schema: { const: '10000' } },
  'GS1-EPCIS-Capture-File-Size-Limit': { description: 'bodyLimitBytes', schema: { type: 'string' } },
};
const epcisProblem = (description: string): Json => ({
  description: `${description} \`type\` is \`epcisException:<Name>\`, beside the gateway's \`code\`.`,
  headers: withRequestId(VERSION_HEADERS),
  content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } },
});

const pathParameter = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
const routeParameters = [
  pathParameter('base', "The endpoint's base route path."),
  pathParameter('route', 'The EpcisObject route: HttpPost for capture, HttpGet for query.'),
];

const refusals = {
  '401': problem('Unauthorized'),
  '403': problem('Forbidden'),
  '404': epcisProblem('No such route, capture or event (`NoSuchNameException` for a capture or an event).'),
  '405': problem('MethodNotAllowed'),
  '429': problem('TooManyFailures'),
  '500': epcisProblem('`ImplementationException`.'),
  '503': problem('Unavailable'),
};

const options = (operationId: string, allow: string): Json => ({
  operationId,
  summary: 'Discovery: methods, versions and capture limits',
  tags: ['EPCIS'],
  security: [],
  responses: {
    '204': {
      description: 'No content.',
      headers: withRequestId({ Allow: { schema: { const: allow } }, ...VERSION_HEADERS, ...LIMIT_HEADERS }),
    },
  },
});

const capture = {
  parameters: routeParameters,
  post: {
    operationId: 'epcisCapture',
    summary: 'Capture an EPCISDocument (a queued submission to the route)',
    description:
      'Always queued; the capture job reports the outcome. `rollback` stores nothing when any event is invalid, `proceed` stores the valid ones. An event whose `eventID` the endpoint already holds is skipped, not an error.',
    tags: ['EPCIS'],
    security: SECURITY,
    parameters: [
      ref('parameters', 'RequestId'),
      {
        name: 'GS1-Capture-Error-Behaviour',
        in: 'header',
        required: false,
        schema: { enum: ['rollback', 'proceed'], default: 'rollback' },
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { type: 'object' } },
        'application/ld+json': { schema: { type: 'object' } },
      },
    },
    responses: {
      '202': jsonResponse(
        'Queued: the capture job is at `Location`.',
        { type: 'object', required: ['captureID'], properties: { captureID: { type: 'string' } } },
        { Location: ref('headers', 'Location'), ...VERSION_HEADERS },
      ),
      '400': epcisProblem('`ValidationException`: not JSON, or a bad header.'),
      '413': epcisProblem(
        '`CaptureLimitExceededException`: more than 10,000 events (`GS1-EPCIS-Capture-Limit`) or a body over bodyLimitBytes (`GS1-EPCIS-Capture-File-Size-Limit`).',
      ),
      '415': problem('UnsupportedMediaType'),
      ...refusals,
    },
  },
  options: options('epcisCaptureOptions', 'POST, OPTIONS'),
};

const captureJob = {
  parameters: [...routeParameters, pathParameter('captureID', 'The id `POST capture` answered.')],
  get: {
    operationId: 'epcisCaptureJob',
    summary: 'A capture job',
    tags: ['EPCIS'],
    security: SECURITY,
    parameters: [ref('parameters', 'RequestId')],
    responses: {
      '200': jsonResponse('The job.', {
        type: 'object',
        required: ['captureID', 'createdAt', 'finishedAt', 'running', 'success', 'captureErrorBehaviour', 'errors'],
        properties: {
          captureID: { type: 'string' },
          createdAt: { type: 'string', format: 'date-time' },
          finishedAt: { type: ['string', 'null'], format: 'date-time' },
          running: { type: 'boolean' },
          success: { type: 'boolean' },
          captureErrorBehaviour: { enum: ['rollback', 'proceed'] },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type', 'title', 'detail'],
              properties: {
                type: { type: 'string' },
                title: { type: 'string' },
                detail: { type: 'string' },
                pointer: { type: 'string' },
              },
            },
          },
        },
      }),
      ...refusals,
    },
  },
  options: options('epcisCaptureJobOptions', 'GET, OPTIONS'),
};

const query = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const time = (name: string, bound: string) =>
  query(name, `${bound}; RFC 3339 with an offset.`, { type: 'string', format: 'date-time' });
const anyOf = 'Comma-separated: any of the values.';
const epcs = (roles: string) =>
  `${anyOf} Exact URIs or \`urn:epc:idpat:\` patterns (a field may be \`*\`), matched in ${roles}.`;

/** The SimpleEventQuery parameters of SPEC §17; any other name answers 400. */
const queryParameters: Json[] = [
  query(
    'eventType',
    `${anyOf} ObjectEvent, AggregationEvent, TransactionEvent, TransformationEvent, AssociationEvent.`,
  ),
  time('GE_eventTime', 'eventTime at or after (inclusive)'),
  time('LT_eventTime', 'eventTime before (exclusive)'),
  time('GE_recordTime', 'recordTime at or after (inclusive)'),
  time('LT_recordTime', 'recordTime before (exclusive)'),
  query('EQ_action', `${anyOf} ADD, OBSERVE, DELETE.`),
  query('EQ_bizStep', `${anyOf} A CBV word in any form (bare, ref.gs1.org URI, CBV 1.2 URN) or a URI.`),
  query('EQ_disposition', `${anyOf} A CBV word in any form or a URI.`),
  query('EQ_readPoint', `${anyOf} readPoint ids.`),
  query('EQ_bizLocation', `${anyOf} bizLocation ids.`),
  query('EQ_eventID', `${anyOf} eventIDs.`),
  query('MATCH_epc', epcs('epcList and childEPCs')),
  query('MATCH_parentID', epcs('parentID')),
  query('MATCH_inputEPC', epcs('inputEPCList')),
  query('MATCH_outputEPC', epcs('outputEPCList')),
  query('MATCH_anyEPC', epcs('epcList, childEPCs, parentID, inputEPCList and outputEPCList')),
  query('MATCH_epcClass', epcs('the epcClass of quantityList and childQuantityList')),
  query('orderBy', 'Default recordTime.', { enum: ['eventTime', 'recordTime'], default: 'recordTime' }),
  query('orderDirection', 'Default ASC.', { enum: ['ASC', 'DESC'], default: 'ASC' }),
  query('eventCountLimit', 'At most this many events in all pages; needs orderBy.', { type: 'integer', minimum: 1 }),
  query('perPage', 'Events per page.', { type: 'integer', minimum: 1, maximum: 1000, default: 30 }),
  query(
    'nextPageToken',
    'From the `Link` of the previous page; alone or with exactly its query. It pins the first page’s result set.',
  ),
];

const queryDocument = jsonResponse(
  'An EPCISQueryDocument (queryName SimpleEventQuery); each event with eventID and recordTime.',
  { type: 'object', required: ['@context', 'type', 'schemaVersion', 'creationDate', 'epcisBody'] },
  {
    ...VERSION_HEADERS,
    Link: { description: '`<…?nextPageToken=…>; rel="next"` when more remain.', schema: { type: 'string' } },
  },
);

const events = {
  parameters: routeParameters,
  get: {
    operationId: 'epcisQueryEvents',
    summary: "SimpleEventQuery over the endpoint's stored EPCIS events",
    description: 'AND across parameters. Answered from indexes (EPCs with their roles, times, bizStep, eventID).',
    tags: ['EPCIS'],
    security: SECURITY,
    parameters: [ref('parameters', 'RequestId'), ...queryParameters],
    responses: { '200': queryDocument, '400': epcisProblem('`QueryParameterException`.'), ...refusals },
  },
  options: options('epcisQueryOptions', 'GET, HEAD, OPTIONS'),
};

const oneEvent = {
  parameters: [...routeParameters, pathParameter('eventID', 'The eventID, URL-encoded.')],
  get: {
    operationId: 'epcisQueryEvent',
    summary: 'One stored EPCIS event, by eventID',
    tags: ['EPCIS'],
    security: SECURITY,
    parameters: [ref('parameters', 'RequestId')],
    responses: { '200': queryDocument, ...refusals },
  },
};

/** The EPCIS repository paths, beside the data routes. */
export const epcisPaths = (): Record<string, Json> => ({
  '/{base}/{route}/capture': capture,
  '/{base}/{route}/capture/{captureID}': captureJob,
  '/{base}/{route}/events': events,
  '/{base}/{route}/events/{eventID}': oneEvent,
});
