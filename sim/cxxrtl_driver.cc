// C++ driver for the CXXRTL model of hwmovegen's MoveGenerator.
//
// Whole jobs run here: load a position, clock the design to `done` while
// collecting the move stream and counters, for a batch of positions. Python
// calls in once per batch (ctypes), never once per clock. The cycle protocol is
// the same as the pysim testbench's (hwmovegen.sim.testbench), so counters match.
//
// Built together with the design's generated top.cc and formats.h (the position
// image's layout, generated from hwmovegen/rtl/types.py); see hwmovegen/sim/cxxrtl.py.
// The driver knows no field of Move, BoardState or Counters: it copies their bits.

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include "top.h"
#include "formats.h"

using namespace cxxrtl_design;

namespace {

// A port is a value<> or, when a flip-flop drives it, a wire<>: its bits either way.
template<size_t Bits> const value<Bits> &bits_of(const value<Bits> &v) { return v; }
template<size_t Bits> const value<Bits> &bits_of(const wire<Bits> &w) { return w.curr; }

using counters_t = typename std::decay<decltype(bits_of(std::declval<p_top &>().p_counters))>::type;
using payload_t = typename std::decay<decltype(bits_of(std::declval<p_top &>().p_moves____payload))>::type;
static_assert(payload_t::bits <= 32, "a move fits a 32-bit word");
static_assert(sizeof(chunk_t) == 4, "counters are copied in 32-bit chunks");
// per position: the number of moves streamed, then the counters' bits
constexpr int STAT_WORDS = 1 + counters_t::chunks;

struct Generator {
    p_top top;
    uint64_t clock_cycles = 0;         // every simulated cycle, loading included
    uint64_t rng = 0x9E3779B97F4A7C15ull;

    bool settled = true;

    // One clock cycle costs one eval(): with the inputs set, raise the clock and
    // eval (the outputs now show the values sampled at this edge, exactly what
    // the pysim testbench's tick().sample() sees), then `finish_cycle` commits
    // the flip-flops and lowers the clock without another eval.
    void begin_cycle() {
        top.p_clk.set<bool>(true);
        if (!top.eval()) settled = false;   // the design would need step(); reported as an error
    }

    void finish_cycle() {
        top.commit();
        top.p_clk.set<bool>(false);
        top.commit();
        clock_cycles++;
    }

    void tick() {
        begin_cycle();
        finish_cycle();
    }

    bool next_ready(uint32_t threshold) {
        if (threshold >= 65536) return true;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        return (rng >> 48) < threshold;
    }

    // The position image: the four bitplanes (byte r of a plane is rank r), then the
    // BoardState bytes. One cycle clears the board and writes the state, then one
    // cycle per rank that holds a piece.
    void load(const uint8_t *image) {
        uint32_t state = 0;
        for (int i = 0; i < STATE_BYTES; i++) state |= uint32_t(image[PLANES * PLANE_BYTES + i]) << (8 * i);
        top.p_load____clear.set<bool>(true);
        top.p_load____state__en.set<bool>(true);
        top.p_load____state.set<uint32_t>(state);
        tick();
        top.p_load____clear.set<bool>(false);
        top.p_load____state__en.set<bool>(false);
        top.p_load____rank__en.set<bool>(true);
        for (int rank = 0; rank < 8; rank++) {
            uint32_t planes = 0;
            for (int plane = 0; plane < PLANES; plane++)
                planes |= uint32_t(image[plane * PLANE_BYTES + rank]) << (8 * plane);
            if (!planes) continue;
            top.p_load____rank.set<uint32_t>(rank);
            top.p_load____rank__planes.set<uint32_t>(planes);
            tick();
        }
        top.p_load____rank__en.set<bool>(false);
    }

    // Returns the number of moves written, or -1 when more than `capacity`, -2 on timeout.
    long run(uint32_t *moves, long capacity, uint32_t *stats, uint32_t threshold, long max_cycles) {
        long count = 0;
        bool ready = next_ready(threshold);
        top.p_start.set<bool>(true);
        top.p_moves____ready.set<bool>(ready);
        tick();
        top.p_start.set<bool>(false);
        long cycle = 1;
        for (;; cycle++) {
            if (cycle >= max_cycles) return -2;
            ready = next_ready(threshold);
            top.p_moves____ready.set<bool>(ready);
            begin_cycle();
            if (!settled) return -3;
            bool valid = top.p_moves____valid.get<bool>();
            bool done = top.p_done.get<bool>();
            if (valid && ready) {
                if (count >= capacity) return -1;
                moves[count++] = top.p_moves____payload.get<uint32_t>();
            }
            finish_cycle();
            if (done) break;
        }
        top.p_moves____ready.set<bool>(false);
        top.p_clk.set<bool>(false);
        top.eval();                         // counters after the last edge
        stats[0] = uint32_t(count);
        const counters_t &counters = bits_of(top.p_counters);
        for (size_t i = 0; i < counters_t::chunks; i++) stats[1 + i] = counters.data[i];
        return count;
    }
};

}  // namespace

extern "C" {

void *hwmg_create(uint64_t seed) {
    Generator *g = new Generator;
    if (seed) g->rng = seed;
    g->top.p_rst.set<bool>(true);
    g->tick();
    g->top.p_rst.set<bool>(false);
    g->tick();
    return g;
}

void hwmg_destroy(void *handle) { delete static_cast<Generator *>(handle); }

uint64_t hwmg_clock_cycles(void *handle) { return static_cast<Generator *>(handle)->clock_cycles; }

int hwmg_stat_words() { return STAT_WORDS; }

// Generate `count` positions. moves: `capacity` words shared by the batch; stats:
// STAT_WORDS per position. ready_threshold: 65536 = always ready, else ready with
// probability threshold/65536 each cycle. Returns the moves written, or a
// negative error (-1 out of space, -2 timeout, -3 the design did not settle in
// one eval per cycle), with *failed_index set.
long hwmg_generate(void *handle, int count, const uint8_t *positions, uint32_t *moves,
                   long capacity, uint32_t *stats, uint32_t ready_threshold, long max_cycles,
                   int *failed_index) {
    Generator *g = static_cast<Generator *>(handle);
    long total = 0;
    for (int i = 0; i < count; i++) {
        g->load(positions + long(i) * POSITION_BYTES);
        long n = g->run(moves + total, capacity - total, stats + long(i) * STAT_WORDS,
                        ready_threshold, max_cycles);
        if (n < 0) {
            *failed_index = i;
            return n;
        }
        total += n;
    }
    return total;
}

}  // extern "C"
