// Signing. The first transaction of a transfer takes the address's next nonce, is signed, stored
// and registered with the deposit watcher in ONE database transaction, before it is broadcast; a
// replacement reuses that nonce (replace.ts). Private keys are opened only here, never logged.
import type { Tx } from '../../../db/index.ts'
import type { SignedTransfer, TransferRequest } from '../../../platform/chain/types.ts'
import { takeNonce } from './nonces.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { logOf } from './report.ts'
import { type PlatformSigner, type Prepared, platformSigner, type SenderContext } from './types.ts'

/** Signs `req` with the transfer's sending key (a platform signer or a custodial key). */
export async function signFor(
  s: SenderContext,
  tx: Tx,
  row: OutgoingRow,
  req: TransferRequest,
): Promise<SignedTransfer> {
  const { chain, keys } = s.deps
  if (row.fromKind === 'platform')
    return platformSigner(chain, row.fromOwnerId as PlatformSigner).signTransfer(req)
  return chain.signTransfer(await keys.privateKey(tx, row.fromAddress), req)
}

/** Takes the next nonce, signs, stores the signed transaction and registers it: one transaction. */
export async function signFirst(s: SenderContext, id: string, prepared: Prepared) {
  const { chain, db, clock, watcher, log } = s.deps
  const row = (await s.load(db, id))!
  // Reconcile with the chain: nonces used outside the platform (after a key export) are skipped.
  const latest = await chain.getNonce(row.fromAddress, 'latest')
  await db.transaction().execute(async (tx) => {
    const current = await s.load(tx, id, true)
    if (current?.status !== 'queued') return
    const nonce = await takeNonce(s, tx, row.fromAddress, latest)
    const signed = await signFor(s, tx, row, {
      coin: row.coin,
      to: row.toAddress,
      amount: BigInt(row.amount),
      nonce,
      gas: prepared.gas,
      fees: prepared.fees,
    })
    const txHash = signed.hash.toLowerCase()
    await outgoingRepo.markSigned(
      tx,
      id,
      { nonce, raw: signed.raw, txHash, gasLimit: signed.gas, maxFee: signed.maxFee },
      clock.now(),
    )
    await watcher.registerOwn(tx, {
      txHash,
      from: row.fromAddress,
      purpose: row.purpose,
      ...(row.creditAccountId ? { creditAccountId: row.creditAccountId } : {}),
    })
    log.info(
      {
        ...logOf(row),
        nonce,
        txHash,
        maxFee: signed.maxFee.toString(),
      },
      'outgoing transfer signed',
    )
  })
}
