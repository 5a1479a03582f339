// SQL of re-attaching a transfer to a transaction signed in a timeline a restore lost.
import type { Tx } from '../../../db/index.ts'

export const attachRepo = {
  /** queued → signed by a transaction this database holds no raw copy of. */
  async markSignedElsewhere(tx: Tx, id: string, t: { nonce: number; txHash: string }, at: Date) {
    await tx
      .updateTable('outgoingTransfers')
      .set({ status: 'signed', nonce: t.nonce, txHash: t.txHash, signedAt: at, updatedAt: at })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .execute()
  },
}
