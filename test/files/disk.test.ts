// File storage on the embedded disk store (the service serves and signs the URLs itself).
import { recordsSuite } from './records-suite.ts'
import { signedUrlSuite } from './signed-url-suite.ts'
import { streamingSuite } from './streaming-suite.ts'
import { fileFixture } from './support.ts'
import { uploadSuite } from './upload-suite.ts'

const files = fileFixture('disk')
uploadSuite(files)
signedUrlSuite(files)
recordsSuite(files)
streamingSuite(files)
