import type { JsonLayout } from '../json-layout';

/**
 * A large body standing in for its parsed JSON between the parse step and validation: the text,
 * and its layout once scanned (the data plane's check scans it; a stored payload the worker
 * claims is scanned when it is validated).
 */
export class LargeJson {
  constructor(
    readonly text: string,
    readonly concatenated: boolean,
    public layout: JsonLayout | null,
  ) {}
}
