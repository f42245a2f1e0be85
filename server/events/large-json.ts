import type { JsonLayout } from '../json-layout';

/**
 * A large body standing in for its parsed JSON between the parse step and validation: its UTF-8
 * bytes (never decoded whole, issue 38.3), and its layout once scanned (the data plane's check
 * scans it; a stored payload the worker claims is scanned when it is validated).
 */
export class LargeJson {
  constructor(
    readonly bytes: Buffer,
    readonly concatenated: boolean,
    public layout: JsonLayout | null,
  ) {}
}
