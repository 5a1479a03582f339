// Types of scripts/compile-sources.mjs (plain JavaScript: `npm start` runs it before any TypeScript
// can be loaded).
export declare const EXTERNAL: readonly string[]
export declare const KEEP: number
export declare function compiledSources(opts: {
  /** the checkout: its src/ is compiled */
  root: string
  /** the esbuild module */
  esbuild: { version: string; build: (...args: any[]) => Promise<unknown> }
  /** default: <root>/node_modules/.cache/workpay */
  cache?: string
}): Promise<{ out: string; compiled: boolean }>
