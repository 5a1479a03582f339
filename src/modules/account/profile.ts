// Profile rules that need no database: validation of the contact and social fields, the merge of a
// partial update into the stored profile, profile completeness and the search text.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { errors } from '../../http/errors.ts'

export interface Contact {
  country?: string
  state?: string
  city?: string
  address?: string
  phone?: string
}
export interface Bio {
  title?: string
  description?: string
}
export interface Talent {
  about?: string
  availability?: string
  tags?: string[]
  /** the skill category chosen at onboarding (a seeded parent tag's name) */
  tagsCategory?: string
}
export interface StoredProfile {
  contact?: Contact
  bio?: Bio
  talent?: Talent
}
export interface Socials {
  github?: string
  twitter?: string
  linkedin?: string
  website?: string
}

export interface ProfileUpdate {
  firstName?: string
  lastName?: string
  profile?: { contact?: Contact; bio?: Bio; talent?: Talent }
  socials?: Socials
  /** file ids (public uploads of the caller); null or '' removes the image */
  bgImage?: string | null
  profileImage?: string | null
  isPrivate?: boolean
  /** keys merged into the stored meta; null removes a key */
  meta?: object
  /** the account type (onboarding) */
  type?: 'talent' | 'business'
}

/** The specification's values and the public SDK's (`busy`, `working`). */
export const AVAILABILITY = ['available', 'limited', 'unavailable', 'busy', 'working'] as const

/** `meta` as stored (JSON, UTF-8) may not pass this size. */
export const META_MAX_BYTES = 16 * 1024
/** Levels of objects and arrays in `meta`, counting meta itself: `{ "a": { "b": 1 } }` has 2. */
export const META_MAX_DEPTH = 5
/** Keys of `meta` the service keeps itself. */
const SERVICE_META_KEYS = new Set(['pointScore'])

function deeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false
  // Stops as soon as the limit is passed, so a hostile nesting costs no deep recursion.
  if (levels === 0) return true
  for (const v of Object.values(value)) if (deeperThan(v, levels - 1)) return true
  return false
}

/**
 * Merges the `meta` of a profile update into the stored one, key by key: a key sent as null is
 * removed, any other value replaces it. Keys the service keeps (`pointScore`) cannot be sent.
 * The result must stay within META_MAX_DEPTH levels and META_MAX_BYTES as JSON.
 */
export function mergeMeta(stored: Record<string, unknown>, patch: object) {
  if (deeperThan(patch, META_MAX_DEPTH))
    throw errors.field('/meta', `meta must not nest more than ${META_MAX_DEPTH} levels deep`)
  const out: Record<string, unknown> = { ...stored }
  for (const [key, value] of Object.entries(patch)) {
    // A `__proto__` key would change the object's prototype instead of storing a key.
    if (key === '__proto__') throw errors.field('/meta', 'meta must not have a __proto__ key')
    if (SERVICE_META_KEYS.has(key))
      throw errors.field(`/meta/${key}`, `${key} is kept by the service and cannot be set`)
    if (value === null) delete out[key]
    else out[key] = value
  }
  const json = JSON.stringify(out)
  if (Buffer.byteLength(json) > META_MAX_BYTES)
    throw errors.field('/meta', `meta must be at most ${META_MAX_BYTES} bytes as JSON`)
  // jsonb cannot hold the NUL character.
  if (json.includes('\\u0000')) throw errors.field('/meta', 'meta must not contain NUL characters')
  return out
}

/**
 * The optional profile fields whose share (filled / all) is the profile completeness. Names and
 * email are required at sign-up, so they do not count.
 */
export const COMPLETENESS_FIELDS = [
  'profile.contact.country',
  'profile.contact.state',
  'profile.contact.city',
  'profile.contact.address',
  'profile.contact.phone',
  'profile.bio.title',
  'profile.bio.description',
  'profile.talent.about',
  'profile.talent.availability',
  'profile.talent.tags',
  'socials.github',
  'socials.twitter',
  'socials.linkedin',
  'socials.website',
] as const

const SOCIAL_HOSTS: Record<keyof Socials, string[] | null> = {
  github: ['github.com'],
  twitter: ['twitter.com', 'x.com'],
  linkedin: ['linkedin.com'],
  website: null,
}

/** A phone number in international format (leading + and country code), returned as E.164. */
export function normalisePhone(raw: string): string {
  const trimmed = raw.trim()
  // Only digits and the usual separators: the parser would otherwise ignore trailing text.
  const parsed = /^\+[0-9][0-9 ().-]{5,30}$/.test(trimmed) ? parsePhoneNumberFromString(trimmed) : undefined
  if (!parsed?.isValid())
    throw errors.field(
      '/profile/contact/phone',
      'phone must be a valid number in international format with the country code, e.g. +14155550123',
    )
  return parsed.number
}

/**
 * A social link: an http(s) URL; for github, twitter and linkedin on that platform's domain (or a
 * subdomain such as www.) and naming a page on it, not only the home page.
 */
export function normaliseSocial(platform: keyof Socials, raw: string): string {
  const path = `/socials/${platform}`
  const value = raw.trim()
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw errors.field(path, `${platform} must be a valid URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw errors.field(path, `${platform} must be an http or https URL`)
  if (url.username || url.password) throw errors.field(path, `${platform} must not carry credentials`)
  const hosts = SOCIAL_HOSTS[platform]
  if (hosts) {
    const host = url.hostname.toLowerCase()
    if (!hosts.some((h) => host === h || host.endsWith(`.${h}`)))
      throw errors.field(path, `${platform} must be a link on ${hosts.join(' or ')}`)
    if (url.pathname.replace(/\/+$/, '') === '')
      throw errors.field(path, `${platform} must link to a profile page, not the home page`)
  }
  return value
}

function mergeStrings<T extends object>(current: T | undefined, patch: T | undefined): T {
  const out: Record<string, unknown> = { ...(current ?? {}) }
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === undefined) continue
    // An empty string clears the field.
    if (typeof v === 'string' && v.trim() === '') delete out[k]
    else out[k] = typeof v === 'string' ? v.trim() : v
  }
  return out as T
}

/** Validates a partial update and merges it sub-field by sub-field into the stored values. */
export function mergeProfile(
  stored: { profile: StoredProfile; socials: Socials },
  update: ProfileUpdate,
): { profile: StoredProfile; socials: Socials } {
  const p = update.profile ?? {}
  const contact = p.contact ? { ...p.contact } : undefined
  if (contact?.phone !== undefined && contact.phone.trim() !== '')
    contact.phone = normalisePhone(contact.phone)
  const socials = update.socials ? { ...update.socials } : undefined
  if (socials) {
    for (const key of Object.keys(SOCIAL_HOSTS) as Array<keyof Socials>) {
      const v = socials[key]
      if (v !== undefined && v.trim() !== '') socials[key] = normaliseSocial(key, v)
    }
  }
  const { tags: _tags, ...talentPatch } = p.talent ?? {}
  const talent = mergeStrings(stored.profile.talent, talentPatch)
  return {
    profile: {
      contact: mergeStrings(stored.profile.contact, contact),
      bio: mergeStrings(stored.profile.bio, p.bio),
      talent,
    },
    socials: mergeStrings(stored.socials, socials),
  }
}

/** Percentage (0–100, whole number) of COMPLETENESS_FIELDS that are filled. */
export function profileCompleteness(profile: StoredProfile, socials: Socials): number {
  const values: Record<(typeof COMPLETENESS_FIELDS)[number], unknown> = {
    'profile.contact.country': profile.contact?.country,
    'profile.contact.state': profile.contact?.state,
    'profile.contact.city': profile.contact?.city,
    'profile.contact.address': profile.contact?.address,
    'profile.contact.phone': profile.contact?.phone,
    'profile.bio.title': profile.bio?.title,
    'profile.bio.description': profile.bio?.description,
    'profile.talent.about': profile.talent?.about,
    'profile.talent.availability': profile.talent?.availability,
    'profile.talent.tags': profile.talent?.tags?.length ? 'yes' : '',
    'socials.github': socials.github,
    'socials.twitter': socials.twitter,
    'socials.linkedin': socials.linkedin,
    'socials.website': socials.website,
  }
  const filled = Object.values(values).filter((v) => typeof v === 'string' && v.trim() !== '').length
  return Math.round((filled * 100) / COMPLETENESS_FIELDS.length)
}

/**
 * The lower-cased text the people search matches: names, userName and tags always; the title and
 * about text only for public profiles, so a search never reveals what a private profile hides.
 */
export function buildSearchText(input: {
  firstName: string
  lastName: string
  userName: string
  isPrivate: boolean
  profile: StoredProfile
  tags: Array<{ name: string; key: string }>
}): string {
  const parts = [input.firstName, input.lastName, input.userName]
  if (!input.isPrivate) parts.push(input.profile.bio?.title ?? '', input.profile.talent?.about ?? '')
  for (const t of input.tags) parts.push(t.name, t.key)
  // Punctuation becomes a space on both sides (here and in searchQuery), so "node.js" is found by
  // "node" and by "js" alike.
  return parts
    .join(' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ')
    .slice(0, 20_000)
}

/**
 * Turns a free-text search into a PostgreSQL tsquery matching every word as a prefix, or undefined
 * when it holds no word. Only letters and digits reach the query, so no input can break its syntax.
 */
export function searchQuery(search: string | undefined): string | undefined {
  if (!search) return
  const words = search
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 8)
  if (words.length === 0) return
  return words.map((w) => `${w}:*`).join(' & ')
}
