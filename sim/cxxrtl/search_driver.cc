// C++ driver for the compiled model (CXXRTL or Verilator, see driver.h) of hwmovegen's SearchEngine.
//
// The host loads the root, writes the history keys and the request, starts the search and
// reads the result, the counters and the principal variation; the search itself runs in the
// simulated hardware. One call per search. Built with the design's model, formats.h and ports.h;
// see hwmovegen/sim/cxxrtl/build.py.

#include <cstdint>
#include "driver.h"

using hwmg::get;
using hwmg::set;

namespace {

using request_t = PORT_TYPE(request);
using result_t = PORT_TYPE(result);
using counters_t = PORT_TYPE(counters);

// Each cycle is stepped to its settled outputs (`hierarchical`: the design keeps shared ray
// logic as modules of its own): the outputs read after a tick are the new cycle's.
struct Search : hwmg::Clocked<> {
    Search() { hierarchical = true; }
};

}  // namespace

extern "C" {

void *hwmg_create(uint64_t) {
    Search *s = new Search;
    s->reset();
    return s;
}

void hwmg_destroy(void *handle) { delete static_cast<Search *>(handle); }

uint64_t hwmg_clock_cycles(void *handle) { return static_cast<Search *>(handle)->clock_cycles; }

int hwmg_request_words() { return hwmg::Words<request_t>::count; }
int hwmg_result_words() { return hwmg::Words<result_t>::count; }
int hwmg_counter_words() { return hwmg::Words<counters_t>::count; }

// One search: load the root image, write the `history` keys, start with the request's words,
// clock until done (at most `max_cycles`), then copy the result and counter words and read the
// principal variation's first `pv_length` moves (from the result, which the caller unpacks:
// here the first `pv_capacity`). The engine's `abort` is raised `abort_after` cycles after start
// (~0: never), or from the first cycle `*stop` is seen non-zero (null: no flag; the host sets it
// from another thread while this call runs, so it is read every cycle, a load from memory); the
// engine then unwinds and is done as at its node limit, and its answer is returned as any other.
// Returns 0, -1 if the engine was busy, -2 if not done in time.
int hwmg_search(void *handle, const uint8_t *image, const uint32_t *request, const uint64_t *history,
                int history_count, uint64_t max_cycles, uint32_t *result, uint32_t *counters,
                uint32_t *pv, int pv_capacity, const volatile int *stop, uint64_t abort_after) {
    Search *s = static_cast<Search *>(handle);
    auto &top = s->top;
    s->load(image);
    if (get<bool>(PORT(busy))) return -1;
    for (int i = 0; i < history_count; i++) {
        set(PORT(history__en), true);
        set(PORT(history__index), uint32_t(i));
        set(PORT(history__key), uint64_t(history[i]));
        s->tick();
    }
    set(PORT(history__en), false);
    hwmg::set_words(PORT(request), request);
    set(PORT(start), true);
    s->tick();
    set(PORT(start), false);
    uint64_t cycles = 0;
    bool aborting = false, finished = true;
    while (!get<bool>(PORT(done))) {
        if (!aborting && (cycles == abort_after || (stop && *stop))) {
            set(PORT(abort), true);     // the engine latches it: held until done, it changes nothing
            aborting = true;
        }
        if (cycles++ == max_cycles) {
            finished = false;
            break;
        }
        s->tick();
    }
    set(PORT(abort), false);
    if (!finished) return -2;
    hwmg::get_words(PORT(result), result);
    hwmg::get_words(PORT(counters), counters);
    s->tick();      // the engine is idle again; the PV table holds the line
    for (int i = 0; i < pv_capacity; i++) {
        set(PORT(pv_index), uint32_t(i));
        s->settle();
        pv[i] = get<uint32_t>(PORT(pv_move));
    }
    return 0;
}

}  // extern "C"
