import { describe, expect, it } from 'vitest';
import { LENIENT_OBJECT, checkFirstEvent, errorPaths, item, list, obj, valueOf } from './helpers';

type Event = Record<string, unknown>;

const SENSOR = 'WithSensorData_SensorDataExample1.jsonld';
const ELEMENT = '/epcisBody/eventList/0/sensorElementList/0';
const firstReport = (e: Event): Event => obj(list(item(e, 'sensorElementList').sensorReport)[0]);
const metadata = (e: Event): Event => obj(item(e, 'sensorElementList').sensorMetadata);

const refused: [name: string, mutate: (e: Event) => void, path: string][] = [
  ['sensorElementList not an array', (e) => (e.sensorElementList = {}), '/epcisBody/eventList/0/sensorElementList'],
  ['a sensor element not an object', (e) => (e.sensorElementList = [[]]), ELEMENT],
  ['sensorReport missing', (e) => delete item(e, 'sensorElementList').sensorReport, `${ELEMENT}/sensorReport`],
  ['sensorReport empty', (e) => (item(e, 'sensorElementList').sensorReport = []), `${ELEMENT}/sensorReport`],
  ['sensorReport not an array', (e) => (item(e, 'sensorElementList').sensorReport = {}), `${ELEMENT}/sensorReport`],
  ['a report not an object', (e) => (item(e, 'sensorElementList').sensorReport = [1]), `${ELEMENT}/sensorReport/0`],
  ['value a string', (e) => (firstReport(e).value = '26.0'), `${ELEMENT}/sensorReport/0/value`],
  ['minValue not finite', (e) => (firstReport(e).minValue = null), `${ELEMENT}/sensorReport/0/minValue`],
  ['measurement type unknown', (e) => (firstReport(e).type = 'Temp'), `${ELEMENT}/sensorReport/0/type`],
  ['unknown key in a report', (e) => (firstReport(e).reading = 1), `${ELEMENT}/sensorReport/0/reading`],
  [
    'hexBinaryValue not hex',
    (e) => (firstReport(e).hexBinaryValue = 'xyz'),
    `${ELEMENT}/sensorReport/0/hexBinaryValue`,
  ],
  ['booleanValue a string', (e) => (firstReport(e).booleanValue = 'true'), `${ELEMENT}/sensorReport/0/booleanValue`],
  ['uriValue not a URI', (e) => (firstReport(e).uriValue = 'some value'), `${ELEMENT}/sensorReport/0/uriValue`],
  [
    'report time without offset',
    (e) => (firstReport(e).time = '2019-04-02T14:05:00'),
    `${ELEMENT}/sensorReport/0/time`,
  ],
  ['exception not an alert type', (e) => (firstReport(e).exception = 'ALARM'), `${ELEMENT}/sensorReport/0/exception`],
  ['component not a CBV component', (e) => (firstReport(e).component = 'north'), `${ELEMENT}/sensorReport/0/component`],
  ['metadata not an object', (e) => (item(e, 'sensorElementList').sensorMetadata = 'x'), `${ELEMENT}/sensorMetadata`],
  ['metadata time invalid', (e) => (metadata(e).time = 'now'), `${ELEMENT}/sensorMetadata/time`],
  ['metadata deviceID not a URI', (e) => (metadata(e).deviceID = 'sensor 1'), `${ELEMENT}/sensorMetadata/deviceID`],
  ['unknown key in metadata', (e) => (metadata(e).battery = 90), `${ELEMENT}/sensorMetadata/battery`],
  ['unknown key in a sensor element', (e) => (item(e, 'sensorElementList').extra = 1), `${ELEMENT}/extra`],
];

const accepted: [name: string, mutate: (e: Event) => void][] = [
  ['a measurement type as a compact IRI', (e) => (firstReport(e).type = 'gs1:MT-Temperature')],
  ['a user-defined measurement type', (e) => (firstReport(e).type = 'example:Vibration')],
  ['an alert exception', (e) => (firstReport(e).exception = 'ALARM_CONDITION')],
  ['a CBV component word', (e) => (firstReport(e).component = 'latitude')],
  ['a report without type', (e) => delete firstReport(e).type],
  ['a sensor element without metadata', (e) => delete item(e, 'sensorElementList').sensorMetadata],
  ['extension keys on element, metadata and report', (e) => {
    item(e, 'sensorElementList')['example:x'] = [{ 'example:y': 1 }];
    metadata(e)['example:firmware'] = '1.2';
    firstReport(e)['example:cv'] = '123';
  }],
]; // prettier-ignore

describe('sensorElementList', () => {
  it.each(refused)('refuses %s', (_name, mutate, path) => {
    expect(errorPaths(checkFirstEvent(SENSOR, mutate))).toContain(path);
    expect(errorPaths(checkFirstEvent(SENSOR, mutate, LENIENT_OBJECT))).toContain(path);
  });

  it.each(accepted)('accepts %s', (_name, mutate) => {
    valueOf(checkFirstEvent(SENSOR, mutate));
  });
});
