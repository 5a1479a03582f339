// Which operator role may call which /v1/admin route: one table, keyed by the route's operationId,
// checked by the admin guard on every request. `support` reads everything and acts for customers
// (suspension, identity verifications, a deposit's rescan); `finance` reads everything and moves
// money (transfers, withdrawals, legs, fee sweeps, halts, reorg decisions); `admin` does all of it,
// configures the platform and its operators, and repairs after a restore. A route missing from the table is refused to everyone but `admin`.
import type { StaffRole } from '../account/types.ts'

/** What a route does, which decides who may call it. */
export type Permission = 'read' | 'customer' | 'money' | 'admin'

export const PERMISSIONS_OF: Record<StaffRole, readonly Permission[]> = {
  admin: ['read', 'customer', 'money', 'admin'],
  finance: ['read', 'money'],
  support: ['read', 'customer'],
}

const moneyActions = (stem: string) =>
  Object.fromEntries(['Retry', 'Replace', 'Cancel'].map((a) => [`${stem}${a}`, 'money' as const]))

/** operationId → the permission a route needs. */
export const ROUTE_PERMISSIONS: Readonly<Record<string, Permission>> = {
  // the session itself: every operator (how a session gets its second factor)
  adminSession: 'read',
  adminSessionCode: 'read',
  elevateAdminSession: 'read',
  endAdminSession: 'read',
  // the operator's own passkeys (unlocking with one, adding, listing, removing)
  adminPasskeyUnlockOptions: 'read',
  elevateAdminSessionPasskey: 'read',
  adminPasskeyRegistrationOptions: 'read',
  adminRegisterPasskey: 'read',
  adminPasskeys: 'read',
  adminRemovePasskey: 'read',
  // reading
  adminStatsOverview: 'read',
  adminStatsTransferAges: 'read',
  adminStatsFlows: 'read',
  adminAudit: 'read',
  adminAuditExport: 'read',
  adminUsers: 'read',
  adminUser: 'read',
  adminTransfers: 'read',
  adminTransfer: 'read',
  adminWithdrawals: 'read',
  adminEscrowLegs: 'read',
  adminDisputes: 'read',
  adminCoins: 'read',
  adminFees: 'read',
  adminReconciliation: 'read',
  adminReorgs: 'read',
  adminPlatformTransfers: 'read',
  adminPlatformTransfer: 'read',
  adminParkedJobs: 'read',
  adminCollectionTypes: 'read',
  adminVerifications: 'read',
  adminVerification: 'read',
  adminDepositLookup: 'read',
  adminSearch: 'read',
  adminChain: 'read',
  adminUserOverview: 'read',
  adminWithdrawal: 'read',
  adminEscrowLeg: 'read',
  adminEscrow: 'read',
  adminJob: 'read',
  adminDispute: 'read',
  // acting for a customer
  adminSuspendUser: 'customer',
  adminUnsuspendUser: 'customer',
  adminApproveVerification: 'customer',
  adminRejectVerification: 'customer',
  adminRescanBlocks: 'customer',
  // moving money, or stopping it
  ...moneyActions('adminTransfer'),
  ...moneyActions('adminWithdrawal'),
  ...moneyActions('adminEscrowLeg'),
  adminSweepFees: 'money',
  adminReconcileNow: 'money',
  adminHaltCoin: 'money',
  adminResumeCoin: 'money',
  adminReorgReverse: 'money',
  adminReorgKeep: 'money',
  adminReservesSnapshot: 'money',
  // configuring the platform and its operators; deciding a dispute (the arbiter is an admin)
  adminDecideDispute: 'admin',
  adminGrantRole: 'admin',
  adminRevokeRole: 'admin',
  adminSetRole: 'admin',
  adminRevokeAllSessions: 'admin',
  adminResetSecondFactor: 'admin',
  // after a restore: re-attaching the platform's own transactions, releasing parked jobs
  adminPlatformTransferReattach: 'admin',
  adminPlatformTransferExternal: 'admin',
  adminPlatformTransferLoss: 'admin',
  adminParkedJobRelease: 'admin',
  adminParkedJobDrop: 'admin',
  adminAddCoin: 'admin',
  adminActivateCoin: 'admin',
  adminDeactivateCoin: 'admin',
  adminSetCoinRate: 'admin',
  adminCreateCollectionType: 'admin',
  adminUpdateCollectionType: 'admin',
  adminCreateCollectionSchema: 'admin',
  adminUpdateCollectionSchema: 'admin',
  adminDeleteCollectionSchema: 'admin',
}

/** The permission a route needs (`admin` for a route the table does not name). */
export function permissionOf(operationId: string | undefined): Permission {
  return (operationId && ROUTE_PERMISSIONS[operationId]) || 'admin'
}

export function mayCall(role: StaffRole, operationId: string | undefined): boolean {
  return PERMISSIONS_OF[role].includes(permissionOf(operationId))
}

/** The roles that may call a route (for error messages and the documentation). */
export function rolesFor(operationId: string | undefined): StaffRole[] {
  const p = permissionOf(operationId)
  return (Object.keys(PERMISSIONS_OF) as StaffRole[]).filter((r) => PERMISSIONS_OF[r].includes(p))
}
