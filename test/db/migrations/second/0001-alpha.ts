export { up } from '../first/0001-alpha.ts'
