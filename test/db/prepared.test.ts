// Which statements go out named (src/db/prepared.ts): calls of registered functions only, one name
// per distinct text, and a bound on how many texts are named.
import { describe, expect, it } from 'vitest'
import { registerPreparedFunction, statementName } from '../../src/db/prepared.ts'

describe('statement names', () => {
  registerPreparedFunction('wp_names_fn')

  it('names a call of a registered function, the same text always alike', () => {
    const text = 'select a, b from wp_names_fn($1, $2::numeric[])'
    const name = statementName(text)
    expect(name).toMatch(/^wp_wp_names_fn_\d+$/)
    expect(statementName(`${text}`)).toBe(name)
    const other = statementName('select a from wp_names_fn($1)')
    expect(other).toMatch(/^wp_wp_names_fn_\d+$/)
    expect(other).not.toBe(name)
  })

  it('leaves every other statement unnamed', () => {
    expect(statementName('select a from other_fn($1)')).toBeUndefined()
    expect(statementName('select * from users where id = $1')).toBeUndefined()
    expect(statementName('create function wp_names_fn(x int) returns int')).toBeUndefined()
    expect(statementName('select wp_names_fn($1)')).toBeUndefined()
    expect(statementName('select 1; select a from wp_names_fn($1)')).toBeUndefined()
  })

  it('stops naming new texts past its bound, and keeps the names it gave', () => {
    const first = statementName('select a from wp_names_fn($1)')
    const given = Array.from({ length: 80 }, (_, i) => statementName(`select a, ${i} from wp_names_fn($1)`))
    expect(given.filter((n) => n !== undefined).length).toBeLessThan(64)
    expect(given.at(-1)).toBeUndefined()
    expect(statementName('select a from wp_names_fn($1)')).toBe(first)
  })
})
