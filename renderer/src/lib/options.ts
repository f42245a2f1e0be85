/** A choice in a select: plain strings are used when value and text are the same. */
export interface SelectOption {
  value: string;
  label: string;
  /**
   * Heading of the `<optgroup>` the option is listed under (MultiSelectField), so the option's own
   * text can stay short, e.g. a route name under its endpoint.
   */
  group?: string;
}
