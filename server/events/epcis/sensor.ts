import { checkVocabulary } from './cbv';
import { at, checkArray, checkDateTime, checkKeys, checkNumber, checkString, checkUri } from './fields';
import { isArray, isRecord, type Report } from './util';

/*
 * sensorElementList (EPCIS 2.0 §7.3.7): each element is {sensorMetadata?, sensorReport: [≥1]},
 * both parts open to extension keys (the GS1 samples carry `example:furtherSensorData`).
 */

type Check = (report: Report, value: unknown, path: string, owner: Record<string, unknown>) => void;

const time: Check = (r, v, p) => checkDateTime(r, v, p);
const uri: Check = (r, v, p) => checkUri(r, v, p);
const num: Check = (r, v, p) => checkNumber(r, v, p);
const str: Check = (r, v, p) => checkString(r, v, p);

const METADATA: ReadonlyMap<string, Check> = new Map(
  Object.entries<Check>({
    time,
    startTime: time,
    endTime: time,
    deviceID: uri,
    deviceMetadata: uri,
    rawData: uri,
    dataProcessingMethod: uri,
    bizRules: uri,
  }),
);

const REPORT: ReadonlyMap<string, Check> = new Map(
  Object.entries<Check>({
    type: (r, v, p, o) => checkVocabulary(r, 'measurementType', v, p, (w) => (o.type = w)),
    exception: (r, v, p, o) => checkVocabulary(r, 'sensorAlertType', v, p, (w) => (o.exception = w)),
    component: (r, v, p, o) => checkVocabulary(r, 'component', v, p, (w) => (o.component = w)),
    deviceID: uri,
    deviceMetadata: uri,
    rawData: uri,
    dataProcessingMethod: uri,
    microorganism: uri,
    chemicalSubstance: uri,
    uriValue: uri,
    coordinateReferenceSystem: uri,
    // Not in the standard's sensor report table, but GS1's SensorDataExample8 (schema-valid) puts
    // the metadata field bizRules on a report, so the schema admits it there.
    bizRules: uri,
    time,
    value: num,
    minValue: num,
    maxValue: num,
    meanValue: num,
    sDev: num,
    percRank: num,
    percValue: num,
    stringValue: str,
    // A sensor's uom is a UN/ECE code too, but the schema only asks for a string here.
    uom: str,
    booleanValue: (r, v, p) => {
      if (typeof v !== 'boolean') r.error(p, 'must be true or false');
    },
    hexBinaryValue: (r, v, p) => {
      if (typeof v !== 'string' || !/^[A-Fa-f0-9]+$/.test(v)) r.error(p, 'must be hexadecimal digits');
    },
  }),
);

const METADATA_KEYS = new Set(METADATA.keys());
const REPORT_KEYS = new Set(REPORT.keys());
const ELEMENT_KEYS = new Set(['sensorMetadata', 'sensorReport']);

function checkFields(
  report: Report,
  obj: Record<string, unknown>,
  checks: ReadonlyMap<string, Check>,
  path: string,
): void {
  for (const [key, value] of Object.entries(obj)) checks.get(key)?.(report, value, at(path, key), obj);
}

function checkSensorReport(report: Report, value: unknown, path: string): void {
  if (!isRecord(value)) {
    report.error(path, 'must be a sensor report object');
    return;
  }
  checkKeys(report, value, REPORT_KEYS, path, 'a sensor report');
  checkFields(report, value, REPORT, path);
}

export function checkSensorElementList(report: Report, value: unknown, path: string): void {
  checkArray(report, value, path, (element, p) => {
    if (!isRecord(element)) {
      report.error(p, 'must be an object {sensorMetadata?, sensorReport}');
      return;
    }
    checkKeys(report, element, ELEMENT_KEYS, p, 'a sensor element');
    const metadata = element.sensorMetadata;
    if (metadata !== undefined) {
      const mp = at(p, 'sensorMetadata');
      if (!isRecord(metadata)) {
        report.error(mp, 'must be an object');
      } else {
        checkKeys(report, metadata, METADATA_KEYS, mp, 'sensorMetadata');
        checkFields(report, metadata, METADATA, mp);
      }
    }
    const reports = element.sensorReport;
    const rp = at(p, 'sensorReport');
    if (reports === undefined) report.error(rp, 'required');
    else if (isArray(reports) && reports.length === 0) report.error(rp, 'must hold at least one sensor report');
    else checkArray(report, reports, rp, (r, pp) => checkSensorReport(report, r, pp));
  });
}
