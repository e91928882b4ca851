// C++ driver for the CXXRTL model of hwmovegen's PerftArray.
//
// The host loads the root, starts the walk and reads the counters; the walk itself
// runs in the simulated hardware. Python calls hwmg_perft_run in slices of cycles
// (for its progress line), never once per clock. Built with the design's top.cc and
// formats.h; see hwmovegen/sim/cxxrtl/build.py.

#include <cstdint>
#include "top.h"
#include "formats.h"
#include "cxxrtl_common.h"

using namespace cxxrtl_design;
using hwmg::bits_of;

namespace {

using counters_t = typename std::decay<decltype(bits_of(std::declval<p_top &>().p_counters))>::type;
static_assert(sizeof(chunk_t) == 4, "counters are copied in 32-bit chunks");

// Each cycle is stepped to its settled outputs (`hierarchical`): the outputs read after a
// tick are the new cycle's. The walk needs only `busy`, `done` and the counters.
struct Perft : hwmg::Clocked<p_top> {
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

int hwmg_counter_words() { return counters_t::chunks; }

// Load the root position image and start a walk of `depth` plies. Returns 0, or -1 if the
// array is busy.
int hwmg_perft_start(void *handle, const uint8_t *image, int depth) {
    Perft *p = static_cast<Perft *>(handle);
    p->load(image);
    if (p->top.p_busy.get<bool>()) return -1;
    p->top.p_depth.set<uint32_t>(depth);
    p->top.p_start.set<bool>(true);
    p->tick();
    p->top.p_start.set<bool>(false);
    p->running = true;
    return 0;
}

// Clock the walk for at most `cycles` cycles. Returns 1 when it is done (the counters'
// words in `counters`), 0 while it goes on.
int hwmg_perft_run(void *handle, uint64_t cycles, uint32_t *counters) {
    Perft *p = static_cast<Perft *>(handle);
    for (uint64_t i = 0; i < cycles && p->running; i++) {
        if (p->top.p_done.get<bool>()) {
            const counters_t &value = bits_of(p->top.p_counters);
            for (size_t w = 0; w < counters_t::chunks; w++) counters[w] = value.data[w];
            p->running = false;
        }
        p->tick();
    }
    return p->running ? 0 : 1;
}

}  // extern "C"
