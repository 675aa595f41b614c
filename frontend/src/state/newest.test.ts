import { describe, expect, it } from 'vitest'
import { newest } from './newest'

const later = <T>() => {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const p = new Promise<T>((ok, bad) => ((resolve = ok), (reject = bad)))
  return { p, resolve, reject }
}
const settle = () => new Promise((r) => setTimeout(r, 0))

describe('newest', () => {
  it('applies only the answer of the last request started, whatever order they arrive in', async () => {
    const load = newest()
    const shown: string[] = []
    const errors: unknown[] = []
    const first = later<string>()
    const second = later<string>()
    load(
      first.p,
      (v) => shown.push(v),
      (e) => errors.push(e),
    )
    load(
      second.p,
      (v) => shown.push(v),
      (e) => errors.push(e),
    )
    second.resolve('second')
    await settle()
    first.resolve('first')
    await settle()
    expect(shown).toEqual(['second'])
    const third = later<string>()
    load(
      third.p,
      (v) => shown.push(v),
      (e) => errors.push(e),
    )
    third.reject(new Error('gone'))
    await settle()
    expect(shown).toEqual(['second'])
    expect(errors).toHaveLength(1)
  })

  it('drops the error of a request overtaken by a newer one', async () => {
    const load = newest()
    const errors: unknown[] = []
    const first = later<number>()
    load(
      first.p,
      () => {},
      (e) => errors.push(e),
    )
    load(Promise.resolve(2), () => {})
    first.reject(new Error('old'))
    await settle()
    expect(errors).toEqual([])
  })
})
