// Reads the Prometheus text exposition format (what a scraper sees) into samples.
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = LINE.exec(line)
    if (!m) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL))
      labels[k!] = v!.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c))
    samples.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return samples
}

export function scrape(res: { body: string }): Sample[] {
  return parseExposition(res.body)
}

/** The value of the sample named `name` whose labels are exactly `labels`. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string>,
): number | undefined {
  const keys = Object.keys(labels)
  return samples.find(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === keys.length &&
      keys.every((k) => s.labels[k] === labels[k]),
  )?.value
}
