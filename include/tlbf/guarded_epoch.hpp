// SPDX-License-Identifier: MIT
// The guarded epoch Bloom filter over a count window (Alpay & Sarioglu, "Guarded Epoch Bloom
// Filters for Sliding-Window Membership", arXiv 2606.19210, 2026, §3).
//
// r+1 equal Bloom-filter segments of s bits. Inserts go to the active segment; the insert that
// finds the active segment holding ℓ = ⌈W/r⌉ keys first clears the next segment and makes it
// active (lazy rotation, which is what reproduces the paper's measured stale rate). Invariant,
// after n >= 1 inserts: the active segment holds the last c ∈ [1, ℓ] inserts and each of the
// other r segments one full earlier epoch of ℓ, so the last c + rℓ >= W inserts are all
// present (paper Lemma 1: no false negatives for the last W inserts). A key's segment is
// cleared by the ((r+1)ℓ)-th insert after the first insert of its epoch, so its own insert
// stops making it positive after at most (r+1)ℓ later inserts, which is W + ℓ when r divides W
// (Proposition 1); otherwise (r+1)ℓ < W + ℓ + r. Queries probe all r+1 segments with the same
// positions, computed once.
//
// GuardedEpochFilter holds the shape and the rotation state and is what callers name;
// BasicGuardedEpochFilter<Layout> adds the bits in one of the layouts of gebf_layouts.hpp and
// is the final class make() and load() build: bit-sliced cells for the plain variant with
// r+1 <= 57, separate segments for larger r and for the blocked variant (§5). The layout is
// a type, so the verbs of each are compiled for it, with no branch on the layout per call.
//
// Sizing: s = gebf_bits_per_key·W/(r+1) when that is set (the paper's budget), else the
// smallest (s, k) meeting error_rate by the §4 approximation (gebf_math.hpp). If (r+1)·s
// exceeds max_memory_bytes, s shrinks to fit and the epoch with it: ℓ becomes the keys a
// segment of that size holds at the same rate (the same bits per key for the paper's
// budget), so the cap gives up window length, never the false-positive rate. The filter then
// keeps the last rℓ < W inserts; each rotation that clears a segment from then on drops keys
// younger than W (a cap bind: cap_binds(), cap_evictions, effective_count = rℓ in stats).
//
// Saved form, after the Algorithm::gebf tag and the count-variant byte: a format byte, the
// State fields in visit_state()'s order, then the bits as one counted word array in the
// layout's order. load() checks the rotation state against the insert count and the shape
// against the limits, and the word count against the remaining input before it allocates.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "tlbf/checks.hpp"
#include "tlbf/config.hpp"
#include "tlbf/detail/gebf_layouts.hpp"
#include "tlbf/detail/gebf_math.hpp"
#include "tlbf/detail/gebf_segment.hpp"
#include "tlbf/detail/prefetch.hpp"
#include "tlbf/filter.hpp"

namespace tlbf {

class GuardedEpochFilter : public WindowFilter {
 public:
  // Throws invalid_parameter naming the first bad field of `cfg`.
  static std::unique_ptr<GuardedEpochFilter> make(const FilterConfig& cfg);
  // Reads what save() wrote after the variant byte; throws state_error on damaged input.
  static std::unique_ptr<GuardedEpochFilter> load(ByteReader& in);

  FilterStats stats(Time) const override {
    FilterStats st;
    st.algorithm = s_.blocked ? "gebf-blocked" : "gebf";
    st.slices = s_.r + 1;
    st.k = s_.k;
    st.slice0_bits = s_.segment_bits;
    st.bits_allocated = (s_.r + 1) * s_.segment_bits;
    st.peak_bits_allocated = st.bits_allocated;
    st.keys_inserted = s_.keys_inserted;
    st.live_keys = std::min({s_.keys_inserted, s_.window, s_.r * ell_ + s_.in_active});
    st.bits_per_live_key =
        st.live_keys ? static_cast<double>(st.bits_allocated) / static_cast<double>(st.live_keys) : 0.0;
    st.memory_capped = s_.cap_evictions > 0;
    st.cap_evictions = s_.cap_evictions;
    if (s_.cap_evictions > 0) st.effective_count = s_.r * ell_;
    return st;
  }

  void save(ByteWriter& out) const override {
    out.u8(static_cast<std::uint8_t>(Algorithm::gebf));
    out.u8(detail::kGebfCount);
    Saver ar(out);
    visit_state(s_, ar);
    visit_bits(*this, ar);
  }

  std::uint32_t r() const { return s_.r; }
  std::uint64_t epoch_length() const { return ell_; }
  std::uint64_t segment_bits() const { return s_.segment_bits; }
  std::uint32_t k() const { return s_.k; }
  bool blocked() const { return s_.blocked; }
  // The paper's approximation for the current shape, with every segment full.
  double predicted_fpr() const { return gebf_fpr(s_.k, ell_, s_.segment_bits, s_.r, s_.blocked); }

 protected:
  // Everything but the bits: the shape, then the rotation state.
  struct State {
    std::uint64_t window = 0;
    std::uint32_t r = 0;
    bool blocked = false;
    std::uint64_t segment_bits = 0;
    std::uint32_t k = 0;
    std::uint32_t active = 0;     // the segment taking inserts
    std::uint64_t in_active = 0;  // inserts it holds
    std::uint64_t keys_inserted = 0;
    bool capped = false;  // the cap shortened the epoch
    detail::ProbeScheme scheme = detail::ProbeScheme::multiply;
    std::uint64_t epoch_length = 0;   // ℓ: ⌈W/r⌉, or fewer when the cap shortened it
    std::uint64_t cap_evictions = 0;  // rotations that dropped keys younger than W
  };

  explicit GuardedEpochFilter(const State& s) : s_(s), ell_(s.epoch_length) {}

  // Lazy rotation: the insert that finds the active segment full moves on to the next one,
  // which the caller clears. True when that happened. Under a cap that shortened the epoch,
  // clearing a segment that holds keys drops keys younger than W: a cap bind.
  bool rotate_if_full() {
    if (s_.in_active != ell_) return false;
    s_.active = (s_.active + 1) % (s_.r + 1);
    s_.in_active = 0;
    if (s_.capped && s_.keys_inserted >= (s_.r + 1) * ell_) {
      ++s_.cap_evictions;
      note_cap_bound();
    }
    return true;
  }
  void count_insert() {
    ++s_.in_active;
    ++s_.keys_inserted;
  }

  // The bits in the layout's order: word_count() = (r+1)·s/64 words.
  virtual std::uint64_t* words() = 0;
  virtual const std::uint64_t* words() const = 0;

  State s_;
  std::uint64_t ell_;  // ⌈W/r⌉, inserts per epoch

 private:
  // The filter with the layout its shape calls for.
  static std::unique_ptr<GuardedEpochFilter> with_layout(const State& s);

  template <class S, class Archive>
  static void visit_state(S& s, Archive& ar) {
    // Read: the format since the plain layout became bit-sliced (2, double-hashed probes), and
    // the one that names its probe scheme (3).
    std::uint8_t format = detail::kGebfCountFormat;
    ar.u8(format);
    if (format != detail::kGebfCountFormat && format != 2) throw state_error("state: gebf: unknown format version");
    auto scheme = static_cast<std::uint8_t>(format == 2 ? detail::ProbeScheme::double_hashing : s.scheme);
    if (format != 2) ar.u8(scheme);
    if constexpr (Archive::loading) {
      detail::check_probe_scheme(scheme);
      s.scheme = static_cast<detail::ProbeScheme>(scheme);
    }
    if (format != 2) ar.u64(s.epoch_length, s.cap_evictions);
    ar.u64(s.window);
    ar.u32(s.r);
    ar.flag(s.blocked);
    ar.u64(s.segment_bits);
    ar.u32(s.k, s.active);  // the rotation state from here on
    ar.u64(s.in_active, s.keys_inserted);
    ar.flag(s.capped);
    if constexpr (Archive::loading) {
      if (format == 2) s.epoch_length = s.r == 0 ? 0 : (s.window + s.r - 1) / s.r;  // format 2: never shortened
    }
  }

  template <class Self, class Archive>
  static void visit_bits(Self& f, Archive& ar) {
    const std::uint64_t expect = word_count(f.s_);
    std::uint64_t n = expect;
    ar.word_count(n, expect);
    if (n != expect) throw state_error("state: gebf: bit array has the wrong length");
    ar.word_data(f.words(), n);
  }

  static std::uint64_t word_count(const State& s) { return (s.r + std::uint64_t{1}) * (s.segment_bits / 64); }

  // The shape against the limits, the rotation state against the insert count (see the top).
  static void check_loaded(const State& s) {
    if (s.window == 0 || s.window > (std::uint64_t{1} << 40) || s.r < 1 || s.r > detail::kGebfMaxR)
      throw state_error("state: gebf: bad parameters");
    const std::uint64_t ell = s.epoch_length;
    if (ell == 0 || ell > (s.window + s.r - 1) / s.r || (ell < (s.window + s.r - 1) / s.r && !s.capped) ||
        (s.cap_evictions > 0 && !s.capped))
      throw state_error("state: gebf: bad epoch length");
    const std::uint64_t unit = detail::unit_bits(s.blocked);
    if (s.segment_bits == 0 || s.segment_bits % unit != 0 || s.segment_bits > detail::kGebfMaxBits / (s.r + 1) ||
        s.k < 1 || s.k > kGebfMaxK)
      throw state_error("state: gebf: bad segment shape");
    const std::uint64_t n = s.keys_inserted;
    const std::uint64_t expect_in = n == 0 ? 0 : (n - 1) % ell + 1;
    const std::uint64_t expect_active = n == 0 ? 0 : ((n - 1) / ell) % (s.r + 1);
    if (s.in_active != expect_in || s.active != expect_active)
      throw state_error("state: gebf: rotation state does not match the insert count");
  }
};

// The count-window GEBF with its bits in `Layout` (detail/gebf_layouts.hpp).
template <class Layout>
class BasicGuardedEpochFilter final : public GuardedEpochFilter {
 public:
  explicit BasicGuardedEpochFilter(const State& s)
      : GuardedEpochFilter(s), layout_(s.r + 1, s.segment_bits, s.k, s.scheme) {}

  bool may_contain(KeyHash h, Time) const override { return layout_.may_contain(h); }
  void insert(KeyHash h, Time) override {
    typename Layout::Positions p;
    layout_.positions(h, p);
    add(p);
  }
  // The probe positions are computed once for the query and the insert.
  bool insert_if_absent(KeyHash h, Time) override {
    typename Layout::Positions p;
    layout_.positions(h, p);
    if (layout_.holds(p)) return false;
    add(p);
    return true;
  }
  void prefetch(const KeyHash& h) const override {
    if ((s_.r + 1) * s_.segment_bits > detail::kPrefetchFromBits) layout_.prefetch(h);
  }
  void accept(FilterVisitor& v) override { v.visit(*this); }

 private:
  void add(const typename Layout::Positions& p) {
    if (rotate_if_full()) layout_.clear(s_.active);
    layout_.set(p, s_.active);
    count_insert();
  }
  std::uint64_t* words() override { return layout_.words(); }
  const std::uint64_t* words() const override { return layout_.words(); }

  Layout layout_;
};

inline std::unique_ptr<GuardedEpochFilter> GuardedEpochFilter::with_layout(const State& s) {
  if (s.blocked) return std::make_unique<BasicGuardedEpochFilter<detail::SeparateSegments<true>>>(s);
  if (detail::SlicedSegments::fits(s.r + 1))
    return std::make_unique<BasicGuardedEpochFilter<detail::SlicedSegments>>(s);
  return std::make_unique<BasicGuardedEpochFilter<detail::SeparateSegments<false>>>(s);
}

inline std::unique_ptr<GuardedEpochFilter> GuardedEpochFilter::make(const FilterConfig& cfg) {
  if (cfg.window_count == 0) throw invalid_parameter("window_count", "0", "must be > 0 for the count-window GEBF");
  if (cfg.window_count > (std::uint64_t{1} << 40))
    throw invalid_parameter("window_count", parameter_value(cfg.window_count), "is too large");
  detail::check_gebf_r(gebf_r_for(cfg));
  if (!(cfg.gebf_bits_per_key >= 0) || !std::isfinite(cfg.gebf_bits_per_key))
    throw invalid_parameter("gebf_bits_per_key", parameter_value(cfg.gebf_bits_per_key), "must be >= 0");
  check_max_memory(cfg.max_memory_bytes);
  State s;
  s.window = cfg.window_count;
  s.r = gebf_r_for(cfg);
  s.blocked = cfg.gebf_blocked;
  const std::uint64_t ell = (s.window + s.r - 1) / s.r;
  const std::uint64_t unit = detail::unit_bits(s.blocked);
  std::uint64_t seg_bits;
  double f = 0;  // per-segment target when sized from error_rate
  if (cfg.gebf_bits_per_key > 0) {
    // The paper's budget: m = bits_per_key · W split into r+1 equal segments.
    double m = cfg.gebf_bits_per_key * static_cast<double>(s.window);
    seg_bits = static_cast<std::uint64_t>(m / static_cast<double>(s.r + 1) / static_cast<double>(unit)) * unit;
  } else {
    check_error_rate(cfg.error_rate);
    f = gebf_segment_target(cfg.error_rate, s.r);
    seg_bits = segment_shape_for(s.blocked, static_cast<double>(ell), f).bits;
  }
  s.epoch_length = ell;
  const std::uint64_t cap_bits =
      std::max(unit, std::min(cfg.max_memory_bytes, detail::kGebfMaxBits / 8) * 8 / (s.r + 1) / unit * unit);
  if (seg_bits > cap_bits) {
    // The epoch shrinks with the segment, at the same rate (or the same bits per key).
    s.epoch_length =
        f > 0 ? keys_fitting(s.blocked, cap_bits, f) : std::max<std::uint64_t>(1, ell * cap_bits / seg_bits);
    seg_bits = cap_bits;
    s.capped = true;
  }
  s.segment_bits = std::max(seg_bits, unit);
  s.k = best_k(s.blocked, static_cast<double>(s.epoch_length), static_cast<double>(s.segment_bits));
  return with_layout(s);
}

inline std::unique_ptr<GuardedEpochFilter> GuardedEpochFilter::load(ByteReader& in) {
  Loader ar(in);
  State s;
  visit_state(s, ar);
  check_loaded(s);
  // Before allocating: a damaged count must not make us allocate what the input cannot fill.
  if (word_count(s) > ar.remaining() / 8) throw state_error("state: gebf: bit array has the wrong length");
  std::unique_ptr<GuardedEpochFilter> f = with_layout(s);
  visit_bits(*f, ar);
  return f;
}

}  // namespace tlbf
