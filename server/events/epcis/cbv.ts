import { isUri, type Report } from './util';

/*
 * CBV 2.0 vocabularies. In JSON-EPCIS a standard value is written as the bare word (`shipping`),
 * which the EPCIS @context expands to https://ref.gs1.org/cbv/BizStep-shipping; any other value
 * must be a URI (user vocabulary). A bare word outside the list is therefore an error: it would
 * expand to a GS1 URI that does not exist.
 */

const BIZ_STEPS = [
  'accepting', 'arriving', 'assembling', 'collecting', 'commissioning', 'consigning', 'creating_class_instance',
  'cycle_counting', 'decommissioning', 'departing', 'destroying', 'disassembling', 'dispensing', 'encoding',
  'entering_exiting', 'holding', 'inspecting', 'installing', 'killing', 'loading', 'other', 'packing', 'picking',
  'receiving', 'removing', 'repackaging', 'repairing', 'replacing', 'reserving', 'retail_selling', 'sampling',
  'sensor_reporting', 'shipping', 'staging_outbound', 'stock_taking', 'stocking', 'storing', 'transporting',
  'unloading', 'unpacking', 'void_shipping',
]; // prettier-ignore

const DISPOSITIONS = [
  'active', 'available', 'completeness_inferred', 'completeness_verified', 'conformant', 'container_closed',
  'container_open', 'damaged', 'destroyed', 'dispensed', 'disposed', 'encoded', 'expired', 'in_progress',
  'in_transit', 'inactive', 'mismatch_class', 'mismatch_instance', 'mismatch_quantity', 'needs_replacement',
  'no_pedigree_match', 'non_conformant', 'non_sellable_other', 'partially_dispensed', 'recalled', 'reserved',
  'retail_sold', 'returned', 'sellable_accessible', 'sellable_not_accessible', 'stolen', 'unavailable', 'unknown',
]; // prettier-ignore

const BIZ_TRANSACTION_TYPES = [
  'bol', 'cert', 'desadv', 'inv', 'pedigree', 'po', 'poc', 'prodorder', 'recadv', 'rma', 'testprd', 'testres', 'upevt',
]; // prettier-ignore

const MEASUREMENT_TYPES = [
  'AbsoluteHumidity', 'AbsorbedDose', 'AbsorbedDoseRate', 'Acceleration', 'Altitude', 'AmountOfSubstance',
  'AmountOfSubstancePerUnitVolume', 'Angle', 'AngularAcceleration', 'AngularMomentum', 'AngularVelocity', 'Area',
  'Capacitance', 'Conductance', 'Conductivity', 'Count', 'Density', 'Dimensionless', 'DoseEquivalent',
  'DoseEquivalentRate', 'DynamicViscosity', 'ElectricCharge', 'ElectricCurrent', 'ElectricCurrentDensity',
  'ElectricFieldStrength', 'Energy', 'Exposure', 'Force', 'Frequency', 'Illuminance', 'Inductance', 'Irradiance',
  'KinematicViscosity', 'Length', 'LinearMomentum', 'Luminance', 'LuminousFlux', 'LuminousIntensity', 'MagneticFlux',
  'MagneticFluxDensity', 'MagneticVectorPotential', 'Mass', 'MassConcentration', 'MassFlowRate', 'MassPerAreaTime',
  'MemoryCapacity', 'MolalityOfSolute', 'MolarEnergy', 'MolarMass', 'MolarVolume', 'Power', 'Pressure', 'Radioactivity', 'RadiantFlux',
  'RadiantIntensity', 'RelativeHumidity', 'Resistance', 'Resistivity', 'SolidAngle', 'SpecificVolume', 'Speed',
  'SurfaceDensity', 'SurfaceTension', 'Temperature', 'Time', 'Torque', 'Voltage', 'Volume', 'VolumeFlowRate',
  'VolumeFraction', 'VolumetricFlux', 'Wavenumber',
]; // prettier-ignore

const COMPONENTS = [
  'x', 'y', 'z', 'axial_distance', 'azimuth', 'height', 'spherical_radius', 'polar_angle', 'elevation_angle',
  'easting', 'northing', 'latitude', 'longitude', 'altitude',
]; // prettier-ignore

interface Vocabulary {
  label: string;
  words: ReadonlySet<string>;
  /** The EPCIS 1.2 / CBV 1.2 URN prefix (`urn:epcglobal:cbv:bizstep:`), not valid in JSON-EPCIS 2.0. */
  urn?: string;
  /** The term prefix of the CBV 2.0 web URI (`BizStep-` in https://ref.gs1.org/cbv/BizStep-shipping). */
  term?: string;
}

export const VOCABULARIES = {
  bizStep: { label: 'bizStep', words: new Set(BIZ_STEPS), urn: 'urn:epcglobal:cbv:bizstep:', term: 'BizStep-' },
  disposition: { label: 'disposition', words: new Set(DISPOSITIONS), urn: 'urn:epcglobal:cbv:disp:', term: 'Disp-' },
  bizTransactionType: {
    label: 'business transaction type',
    words: new Set(BIZ_TRANSACTION_TYPES),
    urn: 'urn:epcglobal:cbv:btt:',
    term: 'BTT-',
  },
  sourceDestType: {
    label: 'source/destination type',
    words: new Set(['owning_party', 'possessing_party', 'location']),
    urn: 'urn:epcglobal:cbv:sdt:',
    term: 'SDT-',
  },
  errorReason: {
    label: 'error reason',
    words: new Set(['did_not_occur', 'incorrect_data']),
    urn: 'urn:epcglobal:cbv:er:',
    term: 'ER-',
  },
  measurementType: { label: 'measurement type', words: new Set(MEASUREMENT_TYPES) },
  component: { label: 'component', words: new Set(COMPONENTS), term: 'Comp-' },
  sensorAlertType: { label: 'sensor alert type', words: new Set(['ALARM_CONDITION', 'ERROR_CONDITION']) },
} satisfies Record<string, Vocabulary>;

export type VocabularyKind = keyof typeof VOCABULARIES;

// CBV 2.0 web URIs live under ref.gs1.org (ns.gs1.org in drafts); `cbv:` is the compact form the
// EPCIS @context defines for the same namespace.
const CBV_NAMESPACES = ['https://ref.gs1.org/cbv/', 'https://ns.gs1.org/cbv/', 'cbv:'];

/** The CBV word a GS1 web URI or compact IRI names (`cbv:BizStep-shipping` → `shipping`), else undefined. */
function cbvTermWord(vocabulary: Vocabulary, value: string): string | undefined {
  if (vocabulary.term === undefined) return undefined;
  for (const ns of CBV_NAMESPACES) {
    if (value.startsWith(ns + vocabulary.term)) return value.slice(ns.length + vocabulary.term.length);
  }
  return undefined;
}

/** The word after a CBV 1.2 URN prefix (matched case-insensitively), else undefined. */
function urnWord(vocabulary: Vocabulary, value: string): string | undefined {
  if (vocabulary.urn === undefined || value.length <= vocabulary.urn.length) return undefined;
  return value.slice(0, vocabulary.urn.length).toLowerCase() === vocabulary.urn
    ? value.slice(vocabulary.urn.length)
    : undefined;
}

const CBV_URN = 'urn:epcglobal:cbv:';
const DRAFT_NAMESPACES = ['https://ns.gs1.org/cbv/', 'http://ns.gs1.org/cbv/'];
const CBV_2_NAMESPACES = ['https://ref.gs1.org/cbv/', 'cbv:'];

/** The CBV 2.0 word a draft-namespace URI (`https://ns.gs1.org/cbv/BizStep-shipping`) names for this field. */
function draftTermWord(vocabulary: Vocabulary, value: string): string | undefined {
  if (vocabulary.term === undefined) return undefined;
  for (const ns of DRAFT_NAMESPACES)
    if (value.startsWith(ns + vocabulary.term)) return value.slice(ns.length + vocabulary.term.length);
  return undefined;
}

/** Strict: an error. Lenient: `word` (a CBV 2.0 word of this field) replaces `value`, with a warning. */
function correctOrRefuse(
  report: Report,
  path: string,
  value: string,
  word: string,
  form: string,
  label: string,
  set: (word: string) => void,
): void {
  if (report.lenient) {
    set(word);
    report.warn(path, `${form} "${value}" replaced by the CBV 2.0 ${label} "${word}"`);
  } else {
    report.error(path, `"${value}" is the ${form} form; JSON-EPCIS 2.0 writes the CBV ${label} as "${word}"`);
  }
}

/**
 * Checks a CBV-valued field: a CBV 2.0 word, the CBV 2.0 web URI or compact IRI of a term of
 * *this* field's vocabulary (`Disp-in_transit` is no bizStep), or a URI outside GS1's CBV
 * namespaces (a user vocabulary). Every CBV 1.2 URN (`urn:epcglobal:cbv:*`) and draft
 * `ns.gs1.org/cbv` URI is refused, except in lenient mode where one naming a word of this field
 * is replaced through `set` (with a warning).
 */
export function checkVocabulary(
  report: Report,
  kind: VocabularyKind,
  value: unknown,
  path: string,
  set: (word: string) => void,
): void {
  const vocabulary: Vocabulary = VOCABULARIES[kind];
  const { label } = vocabulary;
  if (typeof value !== 'string' || value === '') {
    report.error(path, `${label} must be a CBV word or a URI`);
    return;
  }
  if (value.slice(0, CBV_URN.length).toLowerCase() === CBV_URN) {
    const word = urnWord(vocabulary, value);
    if (word !== undefined && vocabulary.words.has(word))
      correctOrRefuse(report, path, value, word, 'EPCIS 1.2 URN', label, set);
    else report.error(path, `"${value}" is an EPCIS 1.2 URN naming no CBV 2.0 ${label}`);
    return;
  }
  if (DRAFT_NAMESPACES.some((ns) => value.startsWith(ns))) {
    const word = draftTermWord(vocabulary, value);
    if (word !== undefined && vocabulary.words.has(word))
      correctOrRefuse(report, path, value, word, 'draft CBV namespace', label, set);
    else report.error(path, `"${value}" is a draft CBV URI naming no CBV 2.0 ${label}`);
    return;
  }
  if (!value.includes(':')) {
    if (!vocabulary.words.has(value))
      report.error(path, `unknown CBV ${label} "${value}"; use a CBV 2.0 word or a URI`);
    return;
  }
  if (!isUri(value)) {
    report.error(path, `${label} "${value}" is neither a CBV word nor a valid URI`);
    return;
  }
  if (CBV_2_NAMESPACES.some((ns) => value.startsWith(ns))) {
    const word = cbvTermWord(vocabulary, value);
    if (word === undefined) report.error(path, `"${value}" is a CBV term of another vocabulary, not a ${label}`);
    else if (!vocabulary.words.has(word)) report.error(path, `"${value}" names no CBV 2.0 ${label}`);
  }
}

/**
 * The form bizStep values are indexed and queried in: the bare CBV word for a CBV word, CBV web
 * URI, compact `cbv:` IRI or CBV 1.2 URN; any other value as given (trimmed).
 */
export function normalizeBizStep(value: string): string {
  return normalizeCbv('bizStep', value);
}

/**
 * The form a bizStep or disposition is indexed and queried in (SPEC §17: a CBV value matches in
 * any of its forms): the bare CBV word for any form of a word of that vocabulary, else as given.
 */
export function normalizeCbv(kind: 'bizStep' | 'disposition', value: string): string {
  const trimmed = value.trim();
  const vocabulary: Vocabulary = VOCABULARIES[kind];
  const word = urnWord(vocabulary, trimmed) ?? cbvTermWord(vocabulary, trimmed) ?? trimmed;
  return vocabulary.words.has(word) ? word : trimmed;
}
