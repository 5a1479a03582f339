// What other modules may name of files: the service's types and the file summary schema that
// their responses embed.
export { FileSummary } from './schemas.ts'
export type { FileService, UploadPart } from './service.ts'
