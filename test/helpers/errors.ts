// The error envelope every refusal answers: the HTTP status, `status: 'error'`, a message for
// people and the machine-readable code in `data.code`.
import { expect } from 'vitest'

export function expectError(res: { statusCode: number; json(): any }, status: number, code: string) {
  const body = res.json()
  expect(res.statusCode, JSON.stringify(body)).toBe(status)
  expect(body).toMatchObject({ status: 'error', message: expect.any(String), data: { code } })
}
