/** A choice in a select: plain strings are used when value and text are the same. */
export interface SelectOption {
  value: string;
  label: string;
}
