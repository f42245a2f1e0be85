import { pointer } from '../types';
import { checkVocabulary } from './cbv';
import { isArray, isDateTime, isExtensionKey, isRecord, isUri, suggestedExtensionKey, type Report } from './util';

/** Appends segments to a JSON Pointer. */
export const at = (path: string, ...segments: (string | number)[]): string => path + pointer(...segments);

/**
 * Reports every key of `obj` that is neither defined by the standard (`known`) nor an extension
 * key (a URI / prefixed name). Extension values are not checked: their meaning is the sender's.
 */
export function checkKeys(
  report: Report,
  obj: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  owner: string,
  extensible = true,
): void {
  for (const key of Object.keys(obj)) {
    if (known.has(key)) continue;
    if (!extensible) {
      // EPCIS 2.0's schema gives these objects no extension point (additionalProperties: false).
      report.error(at(path, key), `unknown field "${key}" in ${owner}, which takes no extension fields`);
      continue;
    }
    if (isExtensionKey(key)) continue;
    report.error(
      at(path, key),
      `unknown field "${key}" in ${owner}; extension fields need a prefixed name such as "${suggestedExtensionKey(key)}"`,
    );
  }
}

export function checkUri(report: Report, value: unknown, path: string, what = 'a URI'): void {
  if (!isUri(value)) report.error(path, `must be ${what}, got ${JSON.stringify(value)}`);
}

export function checkDateTime(report: Report, value: unknown, path: string): void {
  if (!isDateTime(value)) {
    report.error(
      path,
      `must be a date-time with a time zone offset (e.g. "2024-05-01T12:00:00.000+02:00"), got ${JSON.stringify(value)}`,
    );
  }
}

export function checkString(report: Report, value: unknown, path: string): void {
  if (typeof value !== 'string') report.error(path, 'must be a string');
}

export function checkNumber(report: Report, value: unknown, path: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) report.error(path, 'must be a number');
}

/** An array whose items are checked one by one; reports a non-array at `path`. */
export function checkArray(
  report: Report,
  value: unknown,
  path: string,
  item: (value: unknown, path: string) => void,
): void {
  if (!isArray(value)) {
    report.error(path, 'must be an array');
    return;
  }
  value.forEach((v, i) => item(v, at(path, i)));
}

const EPC_URI = 'a URI (an EPC URN such as urn:epc:id:sgtin:… or a GS1 Digital Link such as https://id.gs1.org/01/…)';

/** epcList, childEPCs, inputEPCList, outputEPCList: identifiers as URIs; raw hex is not one. */
export function checkEpcList(report: Report, value: unknown, path: string): void {
  const seen = new Set<unknown>();
  checkArray(report, value, path, (v, p) => {
    checkUri(report, v, p, EPC_URI);
    // One object is listed once (the schema's uniqueItems): a second mention counts nothing new.
    if (seen.has(v)) report.error(p, `${JSON.stringify(v)} is listed twice`);
    seen.add(v);
  });
}

/** parentID, readPoint.id, bizLocation.id, epcClass … : one identifier URI. */
export function checkEpc(report: Report, value: unknown, path: string): void {
  checkUri(report, value, path, EPC_URI);
}

/** JSON-LD @context: a URI, an object, or an array of those. */
export function checkContext(report: Report, value: unknown, path: string): void {
  const item = (v: unknown, p: string): void => {
    if (!isUri(v) && !isRecord(v)) report.error(p, '@context entries must be URIs or objects');
  };
  if (isArray(value)) value.forEach((v, i) => item(v, at(path, i)));
  else item(value, path);
}

/** certificationInfo: a URI or an array of URIs. */
export function checkCertificationInfo(report: Report, value: unknown, path: string): void {
  if (isArray(value)) value.forEach((v, i) => checkUri(report, v, at(path, i)));
  else checkUri(report, value, path);
}

const QUANTITY_KEYS = new Set(['epcClass', 'quantity', 'uom']);
const UOM = /^[A-Z0-9]{2,3}$/;

/** quantityList and its siblings: `epcClass` URI required, `quantity` number, `uom` a UN/ECE rec. 20 code. */
export function checkQuantityList(report: Report, value: unknown, path: string): void {
  checkArray(report, value, path, (element, p) => {
    if (!isRecord(element)) {
      report.error(p, 'must be a quantity element object {epcClass, quantity?, uom?}');
      return;
    }
    checkKeys(report, element, QUANTITY_KEYS, p, 'a quantity element', false);
    if (element.epcClass === undefined) report.error(at(p, 'epcClass'), 'required');
    else checkEpc(report, element.epcClass, at(p, 'epcClass'));
    if (element.quantity !== undefined) checkNumber(report, element.quantity, at(p, 'quantity'));
    if (element.uom !== undefined) {
      if (typeof element.uom !== 'string' || !UOM.test(element.uom)) {
        report.error(
          at(p, 'uom'),
          'must be a UN/ECE Recommendation 20 code of 2–3 upper-case letters or digits (e.g. "KGM")',
        );
      } else if (element.quantity === undefined) {
        // A unit says what the quantity counts; without a quantity it has nothing to qualify.
        report.error(at(p, 'uom'), 'uom is only allowed together with quantity');
      }
    }
  });
}

const LOCATION_KEYS = new Set(['id']);

/** readPoint / bizLocation: `{id}` (a URI) plus extension keys. */
export function checkLocation(report: Report, value: unknown, path: string, owner: string): void {
  if (!isRecord(value)) {
    report.error(path, `${owner} must be an object {id}`);
    return;
  }
  checkKeys(report, value, LOCATION_KEYS, path, owner);
  if (value.id === undefined) report.error(at(path, 'id'), 'required');
  else checkEpc(report, value.id, at(path, 'id'));
}

const BIZ_TRANSACTION_KEYS = new Set(['type', 'bizTransaction']);

export function checkBizTransactionList(report: Report, value: unknown, path: string): void {
  checkArray(report, value, path, (element, p) => {
    if (!isRecord(element)) {
      report.error(p, 'must be an object {type?, bizTransaction}');
      return;
    }
    checkKeys(report, element, BIZ_TRANSACTION_KEYS, p, 'a business transaction', false);
    if (element.type !== undefined) {
      checkVocabulary(report, 'bizTransactionType', element.type, at(p, 'type'), (w) => (element.type = w));
    }
    if (element.bizTransaction === undefined) report.error(at(p, 'bizTransaction'), 'required');
    else checkUri(report, element.bizTransaction, at(p, 'bizTransaction'));
  });
}

/** sourceList (`{type, source}`) or destinationList (`{type, destination}`); both fields required. */
export function checkSourceDestList(report: Report, value: unknown, path: string, key: 'source' | 'destination'): void {
  const known = new Set(['type', key]);
  checkArray(report, value, path, (element, p) => {
    if (!isRecord(element)) {
      report.error(p, `must be an object {type, ${key}}`);
      return;
    }
    checkKeys(report, element, known, p, `a ${key}`, false);
    if (element.type === undefined) report.error(at(p, 'type'), 'required');
    else checkVocabulary(report, 'sourceDestType', element.type, at(p, 'type'), (w) => (element.type = w));
    if (element[key] === undefined) report.error(at(p, key), 'required');
    else checkUri(report, element[key], at(p, key));
  });
}

const ERROR_DECLARATION_KEYS = new Set(['declarationTime', 'reason', 'correctiveEventIDs']);

export function checkErrorDeclaration(report: Report, value: unknown, path: string): void {
  if (!isRecord(value)) {
    report.error(path, 'must be an object {declarationTime, reason?, correctiveEventIDs?}');
    return;
  }
  checkKeys(report, value, ERROR_DECLARATION_KEYS, path, 'errorDeclaration');
  if (value.declarationTime === undefined) report.error(at(path, 'declarationTime'), 'required');
  else checkDateTime(report, value.declarationTime, at(path, 'declarationTime'));
  if (value.reason !== undefined) {
    checkVocabulary(report, 'errorReason', value.reason, at(path, 'reason'), (w) => (value.reason = w));
  }
  if (value.correctiveEventIDs !== undefined) {
    checkArray(report, value.correctiveEventIDs, at(path, 'correctiveEventIDs'), (v, p) => checkUri(report, v, p));
  }
}

const PERSISTENT_DISPOSITION_KEYS = new Set(['set', 'unset']);

export function checkPersistentDisposition(report: Report, value: unknown, path: string): void {
  if (!isRecord(value)) {
    report.error(path, 'must be an object {set?, unset?}');
    return;
  }
  checkKeys(report, value, PERSISTENT_DISPOSITION_KEYS, path, 'persistentDisposition', false);
  if (value.set === undefined && value.unset === undefined) report.error(path, 'needs set, unset or both');
  for (const key of ['set', 'unset'] as const) {
    const list = value[key];
    if (list === undefined) continue;
    if (!isArray(list) || list.length === 0) {
      report.error(at(path, key), 'must be a non-empty array of dispositions');
      continue;
    }
    list.forEach((v, i) => checkVocabulary(report, 'disposition', v, at(path, key, i), (w) => (list[i] = w)));
    // Compared after lenient corrections, so a URN and its word count as the same disposition.
    list.forEach((v, i) => {
      if (list.indexOf(v) !== i) report.error(at(path, key, i), `${JSON.stringify(v)} is listed twice`);
    });
  }
}

/** ilmd (instance/lot master data) holds only extension keys: the standard defines none of its own. */
export function checkIlmd(report: Report, value: unknown, path: string): void {
  if (!isRecord(value)) {
    report.error(path, 'must be an object');
    return;
  }
  checkKeys(report, value, new Set(), path, 'ilmd');
}
