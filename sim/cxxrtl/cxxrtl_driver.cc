// C++ driver for the compiled model (CXXRTL or Verilator, see driver.h) of hwmovegen's MoveGenerator.
//
// Whole jobs run here: load a position, clock the design to `done` while
// collecting the move stream and counters, for a batch of positions. Python
// calls in once per batch (ctypes), never once per clock. The cycle protocol is
// the same as the pysim testbench's (hwmovegen.sim.harness.pysim), so counters match.
//
// Built together with the design's model, formats.h (the position image's layout, generated
// from hwmovegen/rtl/types.py) and ports.h; see hwmovegen/sim/cxxrtl/build.py.
// The driver knows no field of Move, BoardState or Counters: it copies their bits; it
// writes CycleSample words through the masks formats.h gives it.

#include <cstdint>
#include <cstring>
#include "driver.h"

using hwmg::get;
using hwmg::set;

namespace {

using counters_t = PORT_TYPE(counters);
static_assert(hwmg::Words<PORT_TYPE(moves__payload)>::count == 1, "a move fits a 32-bit word");
// per position: the number of moves streamed, then the counters' bits
constexpr int STAT_WORDS = 1 + hwmg::Words<counters_t>::count;

struct Generator : hwmg::Clocked<> {
    uint64_t rng = 0x9E3779B97F4A7C15ull;

    // The cycle trace, when Python asked for one (hwmg_trace): a CycleSample word per
    // simulated cycle (TRACE_* are its field masks, from formats.h); `trace_length` counts
    // on past `trace_capacity`, so a short buffer is seen.
    uint32_t *trace = nullptr;
    long trace_capacity = 0, trace_length = 0;

    void record(bool start, bool ready) {
        if (!trace) return;
        uint32_t word = (start ? TRACE_START : 0) | (ready ? TRACE_MOVES_READY : 0)
                      | (get<bool>(PORT(start_ready)) ? TRACE_START_READY : 0)
                      | (get<bool>(PORT(busy)) ? TRACE_BUSY : 0)
                      | (get<bool>(PORT(moves__valid)) ? TRACE_MOVES_VALID : 0)
                      | (get<bool>(PORT(done)) ? TRACE_DONE : 0);
        if (trace_length < trace_capacity) trace[trace_length] = word;
        trace_length++;
    }

    bool next_ready(uint32_t threshold) {
        if (threshold >= 65536) return true;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        return (rng >> 48) < threshold;
    }

    // A batch of positions. One at a time (`overlap` false): each is loaded once the
    // previous is done. Back to back (`overlap`, for a core that copies the board at
    // start): the next is loaded as soon as the previous has been taken, and started as
    // soon as the core is ready, while earlier ones still stream their moves.
    // Returns the moves written, -1 out of space, -2 timeout, -3 not one eval a cycle.
    long run_batch(int count, const uint8_t *images, uint32_t *moves, long capacity, uint32_t *stats,
                   uint32_t threshold, long max_cycles, bool overlap, int *failed, uint64_t *span) {
        long total = 0, since_done = 0;
        int loading = -1, phase = 0, loaded = -1, next = 0, started = 0, finished = 0;
        uint64_t first_start = 0;
        bool busy = false;
        *failed = 0;
        while (finished < count) {
            if (++since_done > max_cycles) { *failed = finished; return -2; }
            // this cycle's inputs: a load step, a start of a position loaded before, the stream's ready
            if (loading < 0 && loaded < 0 && next < count && (overlap || (started == finished && !busy))) {
                loading = next++;
                phase = 0;
            }
            load_idle();
            int completed = -1;         // loaded at this edge: may start from the next cycle
            if (loading >= 0 && !load_step(images + long(loading) * POSITION_BYTES, phase)) {
                completed = loading;
                loading = -1;
            }
            set(PORT(start), loaded >= 0);
            bool ready = next_ready(threshold);
            set(PORT(moves__ready), ready);
            begin_cycle();
            if (!settled) { *failed = finished; return -3; }
            record(loaded >= 0, ready);
            // the outputs before this edge
            if (loaded >= 0 && get<bool>(PORT(start_ready))) {
                if (started == 0) first_start = clock_cycles;
                started++;
                loaded = -1;
            }
            if (completed >= 0) loaded = completed;
            busy = get<bool>(PORT(busy));
            if (get<bool>(PORT(moves__valid)) && ready) {
                if (total >= capacity) { *failed = finished; return -1; }
                moves[total++] = get<uint32_t>(PORT(moves__payload));
            }
            if (get<bool>(PORT(done))) {
                uint32_t *stat = stats + long(finished) * STAT_WORDS;
                stat[0] = uint32_t(total);          // the moves taken so far, this done's edge included
                hwmg::get_words(PORT(counters), stat + 1);
                finished++;
                since_done = 0;
                *span = clock_cycles - first_start;     // as the counters count: the done cycle out
            }
            finish_cycle();
        }
        load_idle();
        set(PORT(start), false);
        set(PORT(moves__ready), false);
        return total;
    }
};

}  // namespace

extern "C" {

void *hwmg_create(uint64_t seed) {
    Generator *g = new Generator;
    if (seed) g->rng = seed;
    g->reset();
    return g;
}

void hwmg_destroy(void *handle) { delete static_cast<Generator *>(handle); }

// A design with hierarchy (shared submodules: the ordering stage's ray logic) is stepped to
// settled values each cycle instead of one eval; the protocol and the results are the same.
// (Verilator's flattened model is always evaluated so: there this only resets again.)
// Called before the first batch: the reset that hwmg_create ran is run again the new way.
void hwmg_hierarchical(void *handle, int on) {
    Generator *g = static_cast<Generator *>(handle);
    g->hierarchical = on != 0;
    g->settled = true;
    g->reset();
}

uint64_t hwmg_clock_cycles(void *handle) { return static_cast<Generator *>(handle)->clock_cycles; }

int hwmg_stat_words() { return STAT_WORDS; }

// Record a CycleSample word per simulated cycle into `buffer` from now on (null: stop);
// hwmg_trace_length says how many cycles were recorded (more than `capacity`: some lost).
void hwmg_trace(void *handle, uint32_t *buffer, long capacity) {
    Generator *g = static_cast<Generator *>(handle);
    g->trace = buffer;
    g->trace_capacity = buffer ? capacity : 0;
    g->trace_length = 0;
}

long hwmg_trace_length(void *handle) { return static_cast<Generator *>(handle)->trace_length; }

// Generate `count` positions (`overlap`: back to back). moves: `capacity` words shared by
// the batch; stats: STAT_WORDS per position; span: the cycles from the first start to the
// last done. ready_threshold: 65536 = always ready, else ready with probability
// threshold/65536 each cycle. Returns the moves written, or a negative error (-1 out of
// space, -2 no done within max_cycles, -3 the design did not settle in one eval a cycle),
// with *failed_index set.
long hwmg_generate(void *handle, int count, const uint8_t *positions, uint32_t *moves, long capacity,
                   uint32_t *stats, uint32_t ready_threshold, long max_cycles, int overlap,
                   int *failed_index, uint64_t *span) {
    Generator *g = static_cast<Generator *>(handle);
    return g->run_batch(count, positions, moves, capacity, stats, ready_threshold, max_cycles, overlap != 0,
                        failed_index, span);
}

}  // extern "C"
