// File storage on an S3-compatible store: s3rver started by the test, path-style addressing.
import { recordsSuite } from './records-suite.ts'
import { signedUrlSuite } from './signed-url-suite.ts'
import { streamingSuite } from './streaming-suite.ts'
import { fileFixture } from './support.ts'
import { uploadSuite } from './upload-suite.ts'

const files = fileFixture('s3')
uploadSuite(files)
signedUrlSuite(files)
recordsSuite(files)
streamingSuite(files)
