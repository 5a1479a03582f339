// The job's state machine as a table: every step from every phase by every party answers the
// next phase or the one refusal the API promises (403 wrong party, 409 already there or closed,
// 422 not from this phase); the escrow's events move the job as the docs say.
import { describe, expect, it } from 'vitest'
import { AppError } from '../../src/http/errors.ts'
import {
  type Action,
  checkTransition,
  escrowFrozen,
  FINAL_PHASES,
  type Party,
  type Phase,
  phaseOf,
  statusAfterPayment,
  statusAfterRelease,
  storedAs,
  TRANSITIONS,
} from '../../src/modules/collections/states.ts'

const PHASES: Phase[] = [
  'pending',
  'waiting',
  'ongoing',
  'delivered',
  'disputed',
  'completed',
  'resolved',
  'cancelled',
]
const PARTIES: (Party | 'stranger')[] = ['creator', 'talent', 'invitee', 'arbiter', 'payment', 'stranger']

function outcome(action: Action, phase: Phase, party: Party | 'stranger'): string {
  try {
    return checkTransition(action, phase, party)
  } catch (err) {
    if (err instanceof AppError) return String(err.statusCode)
    throw err
  }
}

describe('the transition table', () => {
  it('answers each step from each phase by each party', () => {
    for (const t of TRANSITIONS)
      for (const phase of PHASES)
        for (const party of PARTIES) {
          const got = outcome(t.action, phase, party)
          const want =
            party === 'stranger' || !t.by.includes(party)
              ? '403'
              : phase === t.to || FINAL_PHASES.includes(phase)
                ? '409'
                : t.from.includes(phase)
                  ? t.to
                  : '422'
          expect(got, `${t.action} from ${phase} by ${party}`).toBe(want)
        }
  })

  it('leads from posting to completion, with cancellation and the dispute branch', () => {
    expect(checkTransition('assign', 'pending', 'invitee')).toBe('waiting')
    expect(checkTransition('fund', 'waiting', 'payment')).toBe('ongoing')
    expect(checkTransition('deliver', 'ongoing', 'talent')).toBe('delivered')
    expect(checkTransition('requestChanges', 'delivered', 'creator')).toBe('ongoing')
    expect(checkTransition('complete', 'delivered', 'creator')).toBe('completed')
    expect(checkTransition('cancel', 'ongoing', 'creator')).toBe('cancelled')
    expect(outcome('cancel', 'delivered', 'creator')).toBe('422')
    expect(checkTransition('dispute', 'delivered', 'talent')).toBe('disputed')
    expect(checkTransition('settle', 'disputed', 'creator')).toBe('resolved')
    expect(checkTransition('decide', 'disputed', 'arbiter')).toBe('resolved')
  })

  it('stores delivered as an ongoing job its talent completed', () => {
    expect(storedAs('delivered')).toEqual({ status: 'ongoing', recipientCompletedJob: true })
    expect(phaseOf({ status: 'ongoing', recipientCompletedJob: true })).toBe('delivered')
    expect(phaseOf({ status: 'disputed', recipientCompletedJob: true })).toBe('disputed')
  })

  it('follows the escrow: payment starts an assigned job, a full release completes an open one', () => {
    const job = (status: string, extra = {}) => ({
      status,
      recipientCompletedJob: false,
      assigned: true,
      ...extra,
    })
    expect(statusAfterPayment(job('waiting'))).toBe('ongoing')
    expect(statusAfterPayment(job('pending'))).toBe('ongoing')
    expect(statusAfterPayment(job('pending', { assigned: false }))).toBe('pending')
    expect(statusAfterPayment(job('cancelled'))).toBe('cancelled')
    expect(statusAfterRelease(job('ongoing'))).toBe('completed')
    expect(statusAfterRelease(job('ongoing', { recipientCompletedJob: true }))).toBe('completed')
    expect(statusAfterRelease(job('resolved'))).toBe('resolved')
    expect(statusAfterRelease(job('cancelled'))).toBe('cancelled')
    expect(['disputed', 'resolved', 'cancelled'].map((status) => escrowFrozen({ status }))).toEqual([
      true,
      true,
      true,
    ])
    expect(['pending', 'waiting', 'ongoing', 'completed'].some((status) => escrowFrozen({ status }))).toBe(
      false,
    )
  })
})
