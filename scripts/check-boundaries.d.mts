// Types of scripts/check-boundaries.mjs (plain JavaScript: `npm run lint` runs it without TypeScript).
export interface BoundaryViolation {
  /** the importing file, from the checkout's root */
  file: string
  /** the imported file, from the checkout's root, without its suffix */
  target: string
  /** the import's path as written */
  specifier: string
}
export declare const ENTRY_FILES: readonly string[]
export declare const ALLOWED: readonly string[]
export declare function boundaryViolations(root: string): BoundaryViolation[]
export declare function checkBoundaries(
  root: string,
  allowed?: readonly string[],
): { violations: BoundaryViolation[]; stale: string[] }
