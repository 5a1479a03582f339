// File storage on an S3-compatible store: s3rver started by the test, path-style addressing.
import { fileSuite } from './suite.ts'

fileSuite('s3')
