// C++ driver for the compiled model (CXXRTL or Verilator, see driver.h) of hwmovegen's LeafCounterTop
// (a LeafCounter on a board RAM).
//
// For each position of a batch: load it, then give its moves one a cycle, as a perft
// engine's frontier does, and collect the counts as they leave the pipeline (they come in
// the order the moves went in). Python calls in once per batch. Built with the design's
// model, formats.h and ports.h; see hwmovegen/sim/cxxrtl/.

#include <cstdint>
#include "driver.h"

using hwmg::get;
using hwmg::set;

namespace {

struct Counter : hwmg::Clocked<> {
    uint32_t *out = nullptr;
    long taken = 0;

    // The counter's wiring is shared C++ classes (sim/cxxrtl/rtlil.py), so a cycle is stepped to its
    // settled outputs (`hierarchical`). Its outputs come from registers: read them, then clock
    // the cycle with the inputs as set. Returns whether the counter was busy.
    Counter() { hierarchical = true; }

    bool step() {
        bool busy = get<bool>(PORT(busy));
        if (get<bool>(PORT(out_valid))) out[taken++] = get<uint32_t>(PORT(count));
        tick();
        return busy;
    }
};

constexpr uint32_t NULL_MOVE = 1u << 31;    // a word with this bit counts the position itself

}  // namespace

extern "C" {

void *hwmg_create(uint64_t) {
    Counter *c = new Counter;
    c->reset();
    return c;
}

void hwmg_destroy(void *handle) { delete static_cast<Counter *>(handle); }

uint64_t hwmg_clock_cycles(void *handle) { return static_cast<Counter *>(handle)->clock_cycles; }

// `positions` images; position i has `move_counts[i]` move words in `moves`, in order.
// Writes one count per move word into `counts`; returns how many it wrote.
long hwmg_count(void *handle, int positions, const uint8_t *images, const int *move_counts,
                const uint32_t *moves, uint32_t *counts) {
    Counter *c = static_cast<Counter *>(handle);
    c->out = counts;
    c->taken = 0;
    long next = 0;
    for (int i = 0; i < positions; i++) {
        const uint8_t *image = images + (long)i * POSITION_BYTES;
        int phase = 0;
        bool more = true;
        while (more) {
            c->load_idle();
            more = c->load_step(image, phase);
            c->step();
        }
        c->load_idle();
        for (int k = 0; k < move_counts[i]; k++, next++) {
            uint32_t word = moves[next];
            set(c->PORT(valid), true);
            set(c->PORT(null), (word & NULL_MOVE) != 0);
            set(c->PORT(move), word & ~NULL_MOVE);
            c->step();
        }
        set(c->PORT(valid), false);
        set(c->PORT(null), false);
    }
    while (c->step()) {}
    return c->settled ? c->taken : -1;
}

}  // extern "C"
