// File storage on the embedded disk store (the service serves and signs the URLs itself).
import { fileSuite } from './suite.ts'

fileSuite('disk')
