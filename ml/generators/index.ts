// Generated sessions for training and evaluating the scorer: bots built on the
// public libraries bot authors use, humans typing to the real figures, and
// helpers that make bots from real human sessions or re-record any session as
// another capture set-up would. Every generator is seeded and pure (no I/O).
// README.md in this folder describes each family and its source.
import type { Signal } from '../../src/scoring/signals'
import { createRng, deriveSeed, type Rng } from '../synth/prng'
import { mouseKeysVisit } from './assistive'
import { humanCursorSystem } from './humancursor'
import { humanizerBezier } from './humanizer'
import { LIBRARY_FAMILIES } from './libraries'
import { naturalMouseDrawing, naturalMouseSession, naturalMouseVisit } from './naturalmouse'
import { oxyMouseVisit } from './oxymouse'
import { pyautoguiDrawing, pyautoguiTween } from './pyautogui'
import { touchBezierSwipe } from './touch'
import { humanTypingSession } from './typing-human'
import { puppeteerHumanizeTyping, typingFixedDelay, typingReplayedRhythm, typingUniformDelay, typingZeroHold } from './typing-bots'

export type GeneratedFamily = {
  name: string
  kind: 'bot' | 'human'
  modality: 'pointer' | 'keyboard' | 'touch' | 'mixed'
  /** the library and version it drives, or 'project' */
  source: string
  make(rng: Rng): Signal[]
  /** its sessions are human one by one and give themselves away only across sessions (one recording replayed many times) */
  crossSessionOnly?: true
  /** never trained on: the eval scores it as a bot tool the trees have not seen, the way the service meets a new one */
  untrained?: true
  /** the ways of using the tool that `make` mixes, each scored apart in the eval as well */
  parts?: readonly { name: string; make(rng: Rng): Signal[] }[]
}

/** a few human rhythms that the replay bots copy; fixed seeds, so the same recordings in every run (made on first use) */
let recorded: Signal[][] | null = null
const recordedRhythms = () =>
  (recorded ??= Array.from({ length: 5 }, (_, i) => humanTypingSession(createRng(deriveSeed(1301, 'recorded-rhythm', i)))))

export const GENERATOR_FAMILIES: readonly GeneratedFamily[] = [
  { name: 'ghost_cursor', kind: 'bot', modality: 'pointer', source: 'ghost-cursor@1.4.2', make: LIBRARY_FAMILIES.ghost_cursor },
  {
    name: 'ghost_cursor_timestamps',
    kind: 'bot',
    modality: 'pointer',
    source: 'ghost-cursor@1.4.2 (useTimestamps)',
    make: LIBRARY_FAMILIES.ghost_cursor_timestamps,
  },
  {
    name: 'ghost_cursor_playwright',
    kind: 'bot',
    modality: 'pointer',
    source: 'ghost-cursor-playwright@2.1.0',
    make: LIBRARY_FAMILIES.ghost_cursor_playwright,
  },
  {
    name: 'ulixee_hero',
    kind: 'bot',
    modality: 'mixed',
    source: '@ulixee/default-human-emulator@2.0.0-alpha.34',
    make: LIBRARY_FAMILIES.ulixee_hero,
  },
  {
    name: 'windmouse_npm',
    kind: 'bot',
    modality: 'pointer',
    source: 'windmouse@1.0.5 (algorithm copied, checked against the package)',
    make: LIBRARY_FAMILIES.windmouse_npm,
  },
  {
    name: 'windmouse_land',
    kind: 'bot',
    modality: 'pointer',
    source: "project (Benjamin Land's published WindMouse)",
    make: LIBRARY_FAMILIES.windmouse_land,
  },
  {
    name: 'humanizer_bezier',
    kind: 'bot',
    modality: 'pointer',
    source: 'bezier-js@6.1.4 + easing functions (project)',
    make: humanizerBezier,
  },
  {
    name: 'humancursor_system',
    kind: 'bot',
    modality: 'pointer',
    source: "project (HumanCursor 1.1's SystemCursor, through pyautogui)",
    make: humanCursorSystem,
    untrained: true,
  },
  {
    name: 'pyautogui_tween',
    kind: 'bot',
    modality: 'pointer',
    source: "project (pyautogui 0.9's moveTo with its default sleeps)",
    make: pyautoguiTween,
    untrained: true,
  },
  {
    name: 'pyautogui_drawing',
    kind: 'bot',
    modality: 'pointer',
    source: "project (DELBOT's botDrawing.py drawing circles with pyautogui 0.9's moveTo)",
    make: pyautoguiDrawing,
    untrained: true,
  },
  {
    name: 'oxymouse',
    kind: 'bot',
    modality: 'pointer',
    source: "project (OxyMouse 1.0's three algorithms with their defaults, played by a Playwright script as its example does)",
    make: oxyMouseVisit(),
    untrained: true,
    parts: [
      { name: 'bezier', make: oxyMouseVisit('bezier') },
      { name: 'gaussian', make: oxyMouseVisit('gaussian') },
      { name: 'perlin', make: oxyMouseVisit('perlin') },
    ],
  },
  {
    name: 'natural_mouse_motion',
    kind: 'bot',
    modality: 'pointer',
    source: "project (NaturalMouseMotion 2.0.3's MouseMotion and FactoryTemplates, through java.awt.Robot)",
    make: naturalMouseSession,
    parts: [
      { name: 'page visits', make: naturalMouseVisit },
      { name: "drawing pages (DELBOT's script)", make: naturalMouseDrawing },
    ],
  },
  {
    name: 'touch_bezier_swipe',
    kind: 'bot',
    modality: 'touch',
    source: 'bezier-js@6.1.4 + Puppeteer/Playwright touchscreen contacts (project)',
    make: touchBezierSwipe,
  },
  {
    name: 'puppeteer_humanize_typing',
    kind: 'bot',
    modality: 'mixed',
    source: '@forad/puppeteer-humanize@1.1.8 typeInto defaults (replayed from its source, MIT)',
    make: puppeteerHumanizeTyping,
  },
  {
    name: 'typing_fixed_delay',
    kind: 'bot',
    modality: 'keyboard',
    source: "project (Puppeteer page.type's { delay })",
    make: typingFixedDelay,
  },
  { name: 'typing_uniform_delay', kind: 'bot', modality: 'keyboard', source: 'project', make: typingUniformDelay },
  { name: 'typing_zero_hold', kind: 'bot', modality: 'keyboard', source: 'project', make: typingZeroHold },
  {
    name: 'typing_replayed_rhythm',
    kind: 'bot',
    modality: 'keyboard',
    source: 'project (replays typing_real_figures recordings)',
    make: (rng) => typingReplayedRhythm(rng, recordedRhythms()),
    crossSessionOnly: true,
  },
  {
    // a person, not a bot: no model trains on it (training takes `bot` families only); the eval scores it
    name: 'mouse_keys',
    kind: 'human',
    modality: 'pointer',
    source: 'project (Mouse Keys as X11 and QMK document it; the person’s timing assumed)',
    make: mouseKeysVisit,
  },
  {
    name: 'typing_real_figures',
    kind: 'human',
    modality: 'keyboard',
    source: 'project (136M Keystrokes figures, README)',
    make: (rng) => humanTypingSession(rng),
  },
]

export function generatorFamily(name: string): GeneratedFamily {
  const f = GENERATOR_FAMILIES.find((g) => g.name === name)
  if (!f) throw new Error(`unknown generator family ${name}`)
  return f
}

export { stitchStrokes, stitchFromCorpus, replayWithJitter, cutStrokes, type StitchOptions, type ReplayOptions } from './stitch'
export {
  stripFields,
  quantiseTime,
  quantisePositions,
  resamplePointer,
  randomCaptureProfile,
  applyCapture,
  type CaptureField,
  type CaptureProfile,
} from './augment'
export { typingFigures, REAL_TYPING_PERCENTILES, REAL_KEY_MIX, PERCENTILE_LEVELS, FIGURE_NAMES, type TypingFigures } from './figures'
export { humanTypingSession, sampleTypingProfile, type TypingProfile } from './typing-human'
