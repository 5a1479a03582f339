// Re-sealing every sealed secret under the current key-encryption key, so an earlier key can be
// retired. Each secret is opened with the key its value names and sealed again with a fresh data
// key under the current one; the new value replaces the old only if the row still holds the old
// (compare-and-set), so a reader always sees one whole value, openable by any process that knows
// both keys. Rows are taken in batches in id order; an interrupted run leaves every row either
// old or new, and the next run carries on with whatever is not yet under the current key.
import type { Kysely } from 'kysely'
import type { SecretBox } from '../platform/crypto/secrets.ts'
import { compareAndSet, countByKeyId, oneUnder, rowsAfter, rowsNotUnder } from './repo.ts'
import { type SealedColumn, sealedColumns, sealedKeyId } from './sealed-columns.ts'

export interface RotationProgress {
  column: string
  /** rows re-sealed in this column so far */
  resealed: number
  /** rows that changed between read and write, left for the next pass */
  skipped: number
  /** rows that could not be opened (their key id is not configured, or the value is damaged) */
  failed: number
  /** rows of this column not under the current key when the column was started */
  total: number
}

export interface RotationOptions {
  db: Kysely<any>
  secrets: SecretBox
  currentKeyId: string
  batchSize?: number
  /** stops after the batch in progress (the run can be resumed) */
  signal?: AbortSignal
  onProgress?: (p: RotationProgress) => void
  columns?: readonly SealedColumn[]
}

export interface RotationResult {
  columns: RotationProgress[]
  /** true when the run stopped early (signal); running again resumes */
  interrupted: boolean
  /** rows that could not be opened: id and the reason (never the value) */
  failures: { column: string; id: string; reason: string }[]
}

export class RotationRefused extends Error {}

/**
 * Refuses to rotate when a value already sealed under the current key id does not open: the key id
 * was reused for other key material, and rotating would make every secret unreadable.
 */
async function checkCurrentKey(opts: RotationOptions, columns: readonly SealedColumn[]) {
  for (const c of columns) {
    const row = await oneUnder(opts.db, c, opts.currentKeyId)
    if (!row) continue
    try {
      opts.secrets.open(row.sealed, c.aad(row.bound))
    } catch {
      throw new RotationRefused(
        `a value of ${c.name} sealed under key id "${opts.currentKeyId}" does not open with the current key: ` +
          'give the new key its own KEY_ENCRYPTION_KEY_ID',
      )
    }
  }
}

export async function rotateKeys(opts: RotationOptions): Promise<RotationResult> {
  const columns = opts.columns ?? sealedColumns
  const batchSize = opts.batchSize ?? 200
  await checkCurrentKey(opts, columns)
  const result: RotationResult = { columns: [], interrupted: false, failures: [] }
  for (const c of columns) {
    const counts = await countByKeyId(opts.db, c)
    const total = Object.entries(counts)
      .filter(([id]) => id !== opts.currentKeyId)
      .reduce((sum, [, n]) => sum + n, 0)
    const progress: RotationProgress = { column: c.name, resealed: 0, skipped: 0, failed: 0, total }
    result.columns.push(progress)
    // Passes until one finds nothing it can change: a row that changed under a pass (compare-and-set
    // lost) is looked at again by the next; a row that cannot be opened is reported once.
    const unopenable = new Set<string>()
    for (;;) {
      let changedThisPass = 0
      let after: string | undefined
      for (;;) {
        if (opts.signal?.aborted) {
          result.interrupted = true
          return result
        }
        const rows = await rowsNotUnder(opts.db, c, opts.currentKeyId, after, batchSize)
        if (rows.length === 0) break
        after = rows[rows.length - 1]!.id
        for (const row of rows) {
          if (unopenable.has(row.id)) continue
          const aad = c.aad(row.bound)
          let next: string
          try {
            next = opts.secrets.seal(opts.secrets.open(row.sealed, aad), aad)
          } catch (err) {
            unopenable.add(row.id)
            progress.failed++
            const keyId = sealedKeyId(row.sealed)
            const reason =
              keyId === undefined
                ? 'not a sealed value'
                : (err as Error).message.startsWith('no key-encryption key')
                  ? `key id "${keyId}" is not configured`
                  : `does not open under key id "${keyId}"`
            result.failures.push({ column: c.name, id: row.id, reason })
            continue
          }
          if (await compareAndSet(opts.db, c, row.id, row.sealed, next)) {
            progress.resealed++
            changedThisPass++
          } else progress.skipped++
        }
        opts.onProgress?.({ ...progress })
      }
      if (changedThisPass === 0) break
      // Another pass only when something raced this one (a row changed between read and write).
      const left = await rowsNotUnder(opts.db, c, opts.currentKeyId, undefined, unopenable.size + 1)
      if (left.every((r) => unopenable.has(r.id))) break
    }
  }
  return result
}

export interface KeyStatus {
  column: string
  byKeyId: Record<string, number>
}

/** How many sealed values each key id holds, per column. */
export async function keyStatus(
  db: Kysely<any>,
  columns: readonly SealedColumn[] = sealedColumns,
): Promise<KeyStatus[]> {
  const out: KeyStatus[] = []
  for (const c of columns) out.push({ column: c.name, byKeyId: await countByKeyId(db, c) })
  return out
}

/** Opens every sealed value; the ones that do not open, by column and row id (never the value). */
export async function verifyKeys(
  db: Kysely<any>,
  secrets: SecretBox,
  columns: readonly SealedColumn[] = sealedColumns,
): Promise<{ checked: number; failures: { column: string; id: string; keyId: string | undefined }[] }> {
  let checked = 0
  const failures: { column: string; id: string; keyId: string | undefined }[] = []
  for (const c of columns) {
    let after: string | undefined
    for (;;) {
      const rows = await rowsAfter(db, c, after, 500)
      if (rows.length === 0) break
      after = rows[rows.length - 1]!.id
      for (const row of rows) {
        checked++
        try {
          secrets.open(row.sealed, c.aad(row.bound))
        } catch {
          failures.push({ column: c.name, id: row.id, keyId: sealedKeyId(row.sealed) })
        }
      }
    }
  }
  return { checked, failures }
}
