// @ts-check
// What the signed-in operator's role may do (`permissions` of GET /v1/admin/session), and which of
// them an admin call needs: the console shows only the actions the role may take. The service checks
// the same on every request (src/modules/admin/roles.ts); a call this file does not name is for
// admins only there too.

/** @type {string[]} */
let permissions = []

/** @param {string[]} list */
export function setPermissions(list) {
  permissions = [...list]
}

/** @type {Array<[RegExp, string]>} */
const NEEDS = [
  [/^\/v1\/admin\/users\/[^/]+\/(suspend|unsuspend)$/, 'customer'],
  [/^\/v1\/admin\/deposits\/rescan$/, 'customer'],
  [/^\/v1\/admin\/verifications\/[^/]+\/(approve|reject)$/, 'customer'],
  [/^\/v1\/admin\/(transfers|withdrawals|escrow-legs)\/[^/]+\/(retry|replace|cancel)$/, 'money'],
  [/^\/v1\/admin\/fees\/sweep$/, 'money'],
  [/^\/v1\/admin\/coins\/[^/]+\/(halt|resume)$/, 'money'],
  [/^\/v1\/admin\/reconciliation\/run$/, 'money'],
  [/^\/v1\/admin\/reorgs\/[^/]+\/(reverse|keep)$/, 'money'],
  [/^\/v1\/admin\/reserves\/snapshot$/, 'money'],
]

/** The permission a POST (or other write) to `path` needs. */
export function needs(path) {
  const bare = path.split('?')[0]
  return NEEDS.find(([re]) => re.test(bare))?.[1] ?? 'admin'
}

/** Whether the operator may send a write to `path`. */
export function may(path) {
  return permissions.includes(needs(path))
}
