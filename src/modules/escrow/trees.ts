// Escrow trees: a child escrow created with #13 `parent` is funded from its parent's escrow.
import type { Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { EscrowPorts } from './ports.ts'
import { escrowRepo } from './repo.ts'

/**
 * The parent of a child escrow: the caller's own top-level collection whose escrow is paid, in
 * the same coin. Someone else's private collection is 404; someone else's public one 403.
 */
export async function parentFor(
  deps: Pick<EscrowPorts, 'db' | 'collections'>,
  payerId: string,
  parentCollectionId: string,
  coin: string,
) {
  const state = await deps.collections.escrowState(deps.db, parentCollectionId)
  const visible = state && (!state.isPrivate || state.creatorId === payerId || state.receiverId === payerId)
  if (!state || !visible) throw errors.notFound('parent collection')
  if (state.creatorId !== payerId)
    throw errors.forbidden('Child escrows can only be funded from your own collections')
  if (!state.escrowId || state.escrowStatus !== 'paid')
    throw errors.named(
      'PARENT_ESCROW_NOT_FUNDED',
      'The parent collection’s escrow is not paid (or already released)',
      {
        errors: [{ path: '/parent', message: 'the parent escrow must be paid and not released' }],
      },
    )
  const parent = await escrowRepo.get(deps.db, state.escrowId)
  if (!parent) throw errors.notFound('parent collection')
  if (parent.coin !== coin) throw errors.field('/coin', 'a child escrow must use its parent’s coin')
  return { collectionId: parentCollectionId, escrowId: parent.id }
}

/**
 * Funds a new child escrow from its parent's balance (inside the child's creation): the parent
 * must be paid, and what it already gave its children plus this child's amountToPay must stay
 * within what it received minus its own fee. The move is an on-chain transfer from the parent's
 * address to the child's; the deposit watcher credits the child, which then becomes paid.
 */
export async function fundChild(
  deps: Pick<EscrowPorts, 'clock'> & { payouts: EscrowPayouts },
  tx: Tx,
  parentEscrowId: string,
  childAddress: string,
  amount: bigint,
  rate: string,
) {
  const parent = (await escrowRepo.get(tx, parentEscrowId, true))!
  if (parent.status !== 'paid')
    throw errors.named('PARENT_ESCROW_NOT_FUNDED', 'The parent escrow is not paid (or is being released)', {
      errors: [{ path: '/parent', message: 'the parent escrow must be paid and not released' }],
    })
  // A part already released was planned from the parent's balance without this child.
  if (BigInt(parent.releasedCents) > 0n)
    throw errors.named(
      'PARENT_ESCROW_PARTLY_RELEASED',
      'The parent escrow has been partly released and cannot fund a child escrow',
      {
        errors: [{ path: '/parent', message: 'the parent escrow is partly released' }],
      },
    )
  const funded = BigInt(parent.fundedToChildren) + amount
  const available = BigInt(parent.received) - BigInt(parent.expectedFee)
  if (funded > available)
    throw errors.insufficientBalance('The parent escrow does not hold enough for this child escrow')
  await escrowRepo.update(tx, parent.id, { fundedToChildren: funded }, deps.clock.now())
  await deps.payouts.queue(tx, parent, [{ kind: 'fund', to: childAddress, amount }], rate)
}
