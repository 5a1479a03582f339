// A bounded in-process map of values kept once known (ids, labels, addresses, recent checks): at
// most `max` entries, the oldest stored going first. Storing a key again makes it the newest and
// never pushes another entry out.
export class Kept<V> {
  readonly #map = new Map<string, V>()

  constructor(readonly max: number) {}

  get size() {
    return this.#map.size
  }

  get(key: string): V | undefined {
    return this.#map.get(key)
  }

  has(key: string): boolean {
    return this.#map.has(key)
  }

  set(key: string, value: V): void {
    if (!this.#map.delete(key) && this.#map.size >= this.max) this.#map.delete(this.#map.keys().next().value!)
    this.#map.set(key, value)
  }

  delete(key: string): void {
    this.#map.delete(key)
  }
}
