// For the tests of one scoring rule: a session judged as the service judges it (the SDK's client vector from
// its own signals), the evidence items that carry the rule's reason code, and the rule held to real people.
import { expect } from 'bun:test'
import { loadReal } from '../../ml/data/load'
import { sessionEvidenceOf } from '../../src/scoring/evidence'
import { windowFeatures } from '../../src/scoring/features'
import { MODEL, scoreSession } from '../../src/scoring/service'
import { type SessionFeatures, sessionFeatures } from '../../src/scoring/session-features'
import type { Signal } from '../../src/scoring/signals'

export const judge = (signals: readonly Signal[]) => scoreSession({ signals, clientFeatures: windowFeatures(signals), replayed: false })

const codedIn = (f: SessionFeatures, code: string) => sessionEvidenceOf(MODEL, f).filter((e) => e.codes.includes(code))

export const evidenceCoded = (signals: readonly Signal[], code: string) => codedIn(sessionFeatures(signals), code)

/** Holds every real human session of ml/data clear of the rule's evidence; the most `count` any of them reached. */
export function mostInRealPeople(code: string, count: (f: SessionFeatures) => number): number {
  let most = 0
  for (const s of [...loadReal('sapimouse'), ...loadReal('delbot')]) {
    if (s.label !== 'human') continue
    const f = sessionFeatures(s.signals)
    most = Math.max(most, count(f))
    expect(codedIn(f, code)).toEqual([])
  }
  return most
}
