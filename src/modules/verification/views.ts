// The API forms of a verification: the SDK's IVerification for its owner, and the operator's view.
import type { MediaRow, VerificationRow } from './repo.ts'

export type VerificationView = ReturnType<typeof toVerification>

const mediaItem = (m: MediaRow) => ({
  _id: m.fileId,
  context: m.context,
  mimetype: m.mimeType,
  size: m.size,
  createdAt: m.createdAt,
})

const person = (row: VerificationRow) => ({
  firstName: row.firstName,
  lastName: row.lastName,
  gender: row.gender,
  dateOfBirth: row.dateOfBirth,
  fullAddress: row.fullAddress,
})

/** The SDK's IVerification; `mediaUrl`: a signed URL of the latest image, when one was made. */
export function toVerification(row: VerificationRow, media: MediaRow[], mediaUrl: string | undefined) {
  const last = media.at(-1)
  return {
    _id: row.id,
    owner: row.userId,
    sessionID: row.providerSessionId,
    sessionToken: row.sessionToken,
    verificationID: row.id,
    providerCreatedTime: row.createdAt,
    type: row.provider,
    status: row.status,
    verificationMetaData: { media: media.map(mediaItem), person: person(row) },
    country: row.country,
    documentType: row.documentType,
    ...(row.documentValidFrom ? { documentValidFrom: row.documentValidFrom } : {}),
    ...(row.documentValidUntil ? { documentValidUntil: row.documentValidUntil } : {}),
    providerReason: row.reason,
    ...(row.reasonCode === null ? {} : { providerReasonCode: row.reasonCode }),
    ...(last ? { mediaId: last.fileId, mediaMimeType: last.mimeType } : {}),
    ...(mediaUrl ? { mediaUrl } : {}),
    createdAt: row.createdAt,
    ...(row.deletedAt ? { deletedAt: row.deletedAt } : {}),
    updatedAt: row.updatedAt,
  }
}

/** The operator's view: the person as declared, each image with a signed URL. */
export function toAdminVerification(
  row: VerificationRow,
  email: string | null,
  media: (MediaRow & { url: string })[],
) {
  return {
    _id: row.id,
    owner: { _id: row.userId, email },
    provider: row.provider,
    status: row.status,
    person: {
      ...person(row),
      country: row.country,
      documentType: row.documentType,
      documentNumber: row.documentNumber,
    },
    media: media.map((m) => ({ ...mediaItem(m), url: m.url })),
    reason: row.reason,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    deletedAt: row.deletedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}
