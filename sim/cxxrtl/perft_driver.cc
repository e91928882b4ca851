// C++ driver for the compiled model (CXXRTL or Verilator, see driver.h) of hwmovegen's PerftArray.
//
// The host loads the root, starts the walk and reads the counters; the walk itself
// runs in the simulated hardware. Python calls hwmg_perft_run in slices of cycles
// (for its progress line), never once per clock. Built with the design's model, formats.h
// and ports.h; see hwmovegen/sim/cxxrtl/build.py.

#include <cstdint>
#include "driver.h"

using hwmg::get;
using hwmg::set;

namespace {

using counters_t = PORT_TYPE(counters);

// Each cycle is stepped to its settled outputs (`hierarchical`): the outputs read after a
// tick are the new cycle's. The walk needs only `busy`, `done` and the counters.
struct Perft : hwmg::Clocked<> {
    bool running = false;
    Perft() { hierarchical = true; }
};

}  // namespace

extern "C" {

void *hwmg_create(uint64_t) {
    Perft *p = new Perft;
    p->reset();
    return p;
}

void hwmg_destroy(void *handle) { delete static_cast<Perft *>(handle); }

uint64_t hwmg_clock_cycles(void *handle) { return static_cast<Perft *>(handle)->clock_cycles; }

int hwmg_counter_words() { return hwmg::Words<counters_t>::count; }

// Load the root position image and start a walk of `depth` plies. Returns 0, or -1 if the
// array is busy.
int hwmg_perft_start(void *handle, const uint8_t *image, int depth) {
    Perft *p = static_cast<Perft *>(handle);
    auto &top = p->top;
    p->load(image);
    if (get<bool>(PORT(busy))) return -1;
    set(PORT(depth), uint32_t(depth));
    set(PORT(start), true);
    p->tick();
    set(PORT(start), false);
    p->running = true;
    return 0;
}

// Clock the walk for at most `cycles` cycles. Returns 1 when it is done (the counters'
// words in `counters`), 0 while it goes on.
int hwmg_perft_run(void *handle, uint64_t cycles, uint32_t *counters) {
    Perft *p = static_cast<Perft *>(handle);
    auto &top = p->top;
    for (uint64_t i = 0; i < cycles && p->running; i++) {
        if (get<bool>(PORT(done))) {
            hwmg::get_words(PORT(counters), counters);
            p->running = false;
        }
        p->tick();
    }
    return p->running ? 0 : 1;
}

}  // extern "C"
