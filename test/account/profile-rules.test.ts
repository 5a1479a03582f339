// Pure profile rules: completeness, search text and query building, phone and link checks.
import { describe, expect, it } from 'vitest'
import {
  buildSearchText,
  COMPLETENESS_FIELDS,
  normalisePhone,
  normaliseSocial,
  profileCompleteness,
  searchQuery,
} from '../../src/modules/account/profile.ts'

describe('profile rules', () => {
  it('completeness is the rounded share of the 14 documented fields', () => {
    expect(COMPLETENESS_FIELDS).toHaveLength(14)
    expect(profileCompleteness({}, {})).toBe(0)
    expect(profileCompleteness({ contact: { city: 'x' } }, {})).toBe(7)
    expect(profileCompleteness({ contact: { city: ' ' }, talent: { tags: [] } }, {})).toBe(0)
    expect(profileCompleteness({ talent: { tags: ['a'] } }, { github: 'g', website: 'w' })).toBe(21)
  })

  it('search text: lower case, punctuation as spaces, private title/about left out', () => {
    const base = {
      firstName: 'Ada',
      lastName: 'Lovelace-King',
      userName: 'ada123',
      profile: { bio: { title: 'Math Wiz' }, talent: { about: 'Engines!' } },
      tags: [{ name: 'Node.js', key: 'node.js' }],
    }
    expect(buildSearchText({ ...base, isPrivate: false })).toBe(
      'ada lovelace king ada123 math wiz engines node js node js',
    )
    expect(buildSearchText({ ...base, isPrivate: true })).toBe('ada lovelace king ada123 node js node js')
  })

  it('search query: only letters and digits reach tsquery, each word a prefix', () => {
    expect(searchQuery(undefined)).toBeUndefined()
    expect(searchQuery('  ')).toBeUndefined()
    expect(searchQuery("':*&|!()")).toBeUndefined()
    expect(searchQuery('Node.JS dev')).toBe('node:* & js:* & dev:*')
    expect(searchQuery('Zoë 42')).toBe('zoë:* & 42:*')
  })

  it('phones become E.164; socials stay on their domains', () => {
    expect(normalisePhone('+1 (415) 555-0123')).toBe('+14155550123')
    expect(() => normalisePhone('415 555 0123')).toThrow()
    expect(normaliseSocial('linkedin', 'https://www.linkedin.com/in/ada')).toBe(
      'https://www.linkedin.com/in/ada',
    )
    expect(() => normaliseSocial('github', 'https://evilgithub.com/ada')).toThrow()
  })
})
