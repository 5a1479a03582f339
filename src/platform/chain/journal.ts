// A devnet journal in a JSON-lines file (for tools and tests that run the devnet without the
// database; the application keeps its journal in the database next to the ledger).
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { DevnetJournal, DevnetJournalEntry } from './types.ts'

export function fileJournal(path: string): DevnetJournal {
  return {
    async load() {
      let text: string
      try {
        text = await readFile(path, 'utf8')
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
        throw err
      }
      const entries: DevnetJournalEntry[] = []
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue
        try {
          entries.push(JSON.parse(line))
        } catch {
          // a line cut by a crash mid-write: everything before it is still good
          break
        }
      }
      return entries
    },
    async append(entry) {
      await mkdir(dirname(path), { recursive: true })
      await appendFile(path, `${JSON.stringify(entry)}\n`)
    },
  }
}
