// A job's inspection period: after the talent delivers, the creator has this many days to complete
// the job, ask for changes or raise a dispute; then it completes by itself (the work feature's
// scheduled release). Set per job at creation, within bounds.
export const INSPECTION_DAYS_DEFAULT = 14
export const INSPECTION_DAYS_MIN = 1
export const INSPECTION_DAYS_MAX = 60
const DAY_MS = 86_400_000

/** The days of a job's inspection period (the default where the job set none). */
export function inspectionDays(row: { inspectionDays: number | null }): number {
  return row.inspectionDays ?? INSPECTION_DAYS_DEFAULT
}

/** When a delivery made at `deliveredAt` completes by itself. */
export function autoCompleteAt(deliveredAt: Date, days: number): Date {
  return new Date(deliveredAt.getTime() + days * DAY_MS)
}
