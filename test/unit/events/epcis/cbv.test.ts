import { describe, expect, it } from 'vitest';
import { validateEpcis } from '../../../../server/events/epcis';
import { LENIENT_MESSAGE, STRICT_MESSAGE, errorPaths, errorsOf, eventOf, load, valueOf } from './helpers';

// Written out independently of the implementation (CBV 2.0 §7.1, §7.2), so a missing word fails here.
const BIZ_STEPS = [
  'accepting', 'arriving', 'assembling', 'collecting', 'commissioning', 'consigning', 'creating_class_instance',
  'cycle_counting', 'decommissioning', 'departing', 'destroying', 'disassembling', 'dispensing', 'encoding',
  'entering_exiting', 'holding', 'inspecting', 'installing', 'killing', 'loading', 'other', 'packing', 'picking',
  'receiving', 'removing', 'repackaging', 'repairing', 'replacing', 'reserving', 'retail_selling', 'sampling',
  'sensor_reporting', 'shipping', 'staging_outbound', 'stock_taking', 'stocking', 'storing', 'transporting',
  'unloading', 'unpacking', 'void_shipping',
]; // prettier-ignore
const DISPOSITIONS = [
  'active', 'available', 'completeness_verified', 'completeness_inferred', 'conformant', 'container_closed',
  'container_open', 'damaged', 'destroyed', 'dispensed', 'disposed', 'encoded', 'expired', 'in_progress',
  'in_transit', 'inactive', 'mismatch_instance', 'mismatch_class', 'mismatch_quantity', 'needs_replacement',
  'no_pedigree_match', 'non_conformant', 'non_sellable_other', 'partially_dispensed', 'recalled', 'reserved',
  'retail_sold', 'returned', 'sellable_accessible', 'sellable_not_accessible', 'stolen', 'unavailable', 'unknown',
]; // prettier-ignore

const EVENT = '/epcisBody/eventList/0';

/** Validates Example 9.6.1 with `field` of its first event set to `value`. */
function withValue(field: 'bizStep' | 'disposition', value: unknown, options = STRICT_MESSAGE) {
  const doc = load('Example_9.6.1-ObjectEvent.jsonld');
  eventOf(doc, 0)[field] = value;
  return validateEpcis(doc, options);
}

describe('CBV bizStep and disposition', () => {
  it('accept every CBV 2.0 bizStep word', () => {
    expect(BIZ_STEPS).toHaveLength(41);
    for (const word of BIZ_STEPS) valueOf(withValue('bizStep', word));
  });

  it('accept every CBV 2.0 disposition word', () => {
    expect(DISPOSITIONS).toHaveLength(33);
    for (const word of DISPOSITIONS) valueOf(withValue('disposition', word));
  });

  it.each([
    ['bizStep', 'https://ref.gs1.org/cbv/BizStep-shipping'],
    ['bizStep', 'cbv:BizStep-receiving'],
    ['bizStep', 'https://example.com/vocab/unboxing'],
    ['bizStep', 'urn:example:bizstep:unboxing'],
    ['disposition', 'https://ref.gs1.org/cbv/Disp-in_transit'],
    ['disposition', 'https://example.com/vocab/quarantined'],
  ] as const)('accept the %s URI %s', (field, value) => {
    valueOf(withValue(field, value));
  });

  it.each([
    ['bizStep', 'ship', 'an unknown bare word'],
    ['bizStep', 'Shipping', 'a word in the wrong case'],
    ['bizStep', 'ship ping', 'a word with a space'],
    ['bizStep', '', 'an empty string'],
    ['bizStep', 7, 'a number'],
    ['bizStep', 'https://ref.gs1.org/cbv/BizStep-flying', 'a CBV web URI naming no CBV word'],
    ['bizStep', 'urn:epcglobal:cbv:bizstep:shipping', 'the EPCIS 1.2 URN form'],
    ['disposition', 'sold', 'an unknown bare word'],
    ['disposition', 'urn:epcglobal:cbv:disp:in_transit', 'the EPCIS 1.2 URN form'],
    ['disposition', 'cbv:Disp-lost', 'a compact CBV IRI naming no CBV word'],
  ] as const)('refuse %s %j (%s) in strict mode', (field, value, _why) => {
    expect(errorPaths(withValue(field, value))).toEqual([`${EVENT}/${field}`]);
  });

  it('name the word to use when refusing the URN form', () => {
    const [error] = errorsOf(withValue('bizStep', 'urn:epcglobal:cbv:bizstep:shipping'));
    expect(error?.message).toContain('"shipping"');
  });

  it.each([
    ['bizStep', 'urn:epcglobal:cbv:bizstep:teleporting'],
    ['disposition', 'urn:epcglobal:cbv:disp:vanished'],
  ] as const)('refuse a %s URN naming no CBV word even in lenient mode', (field, value) => {
    expect(errorPaths(withValue(field, value, LENIENT_MESSAGE))).toEqual([`${EVENT}/${field}`]);
  });
});

describe('other CBV vocabularies in URN form', () => {
  const cases = [
    { name: 'bizTransaction type', fixture: 'Example_9.6.1-ObjectEvent.jsonld', pointer: ['bizTransactionList', 0, 'type'], urn: 'urn:epcglobal:cbv:btt:po', word: 'po' },
    { name: 'source type', fixture: 'Example_9.6.2-ObjectEvent.jsonld', pointer: ['sourceList', 0, 'type'], urn: 'urn:epcglobal:cbv:sdt:possessing_party', word: 'possessing_party' },
    { name: 'error reason', fixture: 'WithErrorDeclaration_ErrorDeclarationAndCorrectiveEvent.jsonld', pointer: ['errorDeclaration', 'reason'], urn: 'urn:epcglobal:cbv:er:incorrect_data', word: 'incorrect_data' },
    { name: 'persistent disposition', fixture: 'WithFullCombinationOfFields_object_event_all_possible_fields.jsonld', pointer: ['persistentDisposition', 'set', 0], urn: 'urn:epcglobal:cbv:disp:completeness_verified', word: 'completeness_verified' },
  ]; // prettier-ignore

  /** Sets the value at `pointer` below the first event; returns the document and the JSON Pointer. */
  function prepared(fixture: string, pointer: (string | number)[], value: string) {
    const doc = load(fixture);
    let target: unknown = eventOf(doc, 0);
    for (const segment of pointer.slice(0, -1)) target = (target as Record<string | number, unknown>)[segment];
    (target as Record<string | number, unknown>)[pointer.at(-1) ?? ''] = value;
    return { doc, path: `${EVENT}/${pointer.join('/')}` };
  }

  it.each(cases)('strict mode refuses the $name URN', ({ fixture, pointer, urn }) => {
    const { doc, path } = prepared(fixture, pointer, urn);
    expect(errorPaths(validateEpcis(doc, STRICT_MESSAGE))).toEqual([path]);
  });

  it.each(cases)('lenient mode turns the $name URN into the word', ({ fixture, pointer, urn, word }) => {
    const { doc, path } = prepared(fixture, pointer, urn);
    const result = valueOf(validateEpcis(doc, LENIENT_MESSAGE));
    expect(result.warnings.map((w) => w.path)).toEqual([path]);
    const expected = prepared(fixture, pointer, word).doc;
    expect(result.value.document).toEqual(expected);
  });
});
