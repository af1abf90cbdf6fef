// Reason codes read off the feature vector. Each rule is a plain threshold
// on computed values; docs/scoring.md lists them with how often each fires
// on synthetic humans (≤ 0.07%, except two device/fullscreen cases).
import { FEATURE_INDEX as F, NO_DATA } from './features'

type Modality = 'pointer' | 'keyboard' | 'scroll' | 'touch' | 'automation'
type Rule = { code: string; modality: Modality; when: (f: readonly number[]) => boolean }

const has = (v: number) => v !== NO_DATA

const BEHAVIOUR_RULES: readonly Rule[] = [
  { code: 'pointer_path_too_straight', modality: 'pointer', when: (f) => f[F.ptr_straightness] >= 0.995 && has(f[F.ptr_deviation]) && f[F.ptr_deviation] < 0.01 },
  { code: 'constant_velocity', modality: 'pointer', when: (f) => has(f[F.ptr_speed_cv]) && f[F.ptr_speed_cv] < 0.3 },
  // Human aimed movements spend longer decelerating than accelerating.
  { code: 'late_velocity_peak', modality: 'pointer', when: (f) => has(f[F.ptr_peak_time_share]) && f[F.ptr_peak_time_share] >= 0.55 },
  {
    code: 'click_without_movement',
    modality: 'pointer',
    when: (f) => (has(f[F.click_hold_mean]) || has(f[F.click_offset_mean])) && f[F.ptr_moves_log] === 0 && !has(f[F.touch_radius_pressure_var]) && !has(f[F.swipe_peak_time_share]),
  },
  { code: 'click_without_dwell', modality: 'pointer', when: (f) => has(f[F.click_dwell_mean]) && f[F.click_dwell_mean] < 10 },
  { code: 'click_hold_too_short', modality: 'pointer', when: (f) => has(f[F.click_hold_mean]) && f[F.click_hold_mean] < 15 },
  { code: 'click_at_target_centre', modality: 'pointer', when: (f) => has(f[F.click_offset_mean]) && f[F.click_offset_mean] < 0.02 },
  {
    code: 'scripted_typing',
    modality: 'keyboard',
    when: (f) =>
      f[F.key_downs_log] >= Math.log1p(5) &&
      ((has(f[F.key_latency_cv]) && f[F.key_latency_cv] < 0.1) || (has(f[F.key_hold_cv]) && f[F.key_hold_cv] < 0.05) || (has(f[F.key_latency_median]) && f[F.key_latency_median] < 15)),
  },
  { code: 'uniform_scroll', modality: 'scroll', when: (f) => has(f[F.scroll_gap_cv]) && f[F.scroll_gap_cv] < 0.01 && has(f[F.scroll_delta_distinct]) && f[F.scroll_delta_distinct] <= 0.2 },
  { code: 'touch_contact_constant', modality: 'touch', when: (f) => f[F.touch_radius_pressure_var] === 0 },
  { code: 'event_burst', modality: 'automation', when: (f) => has(f[F.gap_burst_share]) && f[F.gap_burst_share] >= 0.25 },
  { code: 'timestamps_on_grid', modality: 'automation', when: (f) => has(f[F.gap_grid_share]) && f[F.gap_grid_share] >= 0.8 },
  { code: 'screen_client_coordinates_equal', modality: 'automation', when: (f) => has(f[F.screen_client_equal_share]) && f[F.screen_client_equal_share] >= 0.9 },
]

const NATURAL: readonly { code: string; modality: Modality; present: (f: readonly number[]) => boolean }[] = [
  { code: 'pointer_dynamics_natural', modality: 'pointer', present: (f) => has(f[F.ptr_straightness]) },
  { code: 'typing_rhythm_natural', modality: 'keyboard', present: (f) => has(f[F.key_latency_cv]) },
  { code: 'scroll_behaviour_natural', modality: 'scroll', present: (f) => has(f[F.scroll_gap_cv]) },
  { code: 'touch_dynamics_natural', modality: 'touch', present: (f) => has(f[F.swipe_peak_time_share]) || has(f[F.touch_radius_pressure_var]) },
]

/**
 * What the behaviour says: for a verified human, each modality with data
 * and no rule hit; otherwise the rule hits, which explain the lower score.
 */
export function behaviourReasons(f: readonly number[], verified: boolean): string[] {
  const hits = BEHAVIOUR_RULES.filter((r) => r.when(f))
  if (!verified) return hits.map((r) => r.code)
  return NATURAL.filter((n) => n.present(f) && !hits.some((h) => h.modality === n.modality)).map((n) => n.code)
}
