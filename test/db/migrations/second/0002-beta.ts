export { up } from '../first/0002-beta.ts'
