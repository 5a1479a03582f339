// Money units live in platform/money; this name stays only until its last importers switch.
export { formatUnits as formatExact } from '../../platform/money/index.ts'
