// Types of build-freshness.js for the tests (the script itself is plain JavaScript run by Node).
export function isBuildCurrent(root: string, targets: readonly string[], sources?: readonly string[]): boolean;
