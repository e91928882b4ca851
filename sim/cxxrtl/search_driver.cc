// C++ driver for the CXXRTL model of hwmovegen's SearchEngine.
//
// The host loads the root, writes the history keys and the request, starts the search and
// reads the result, the counters and the principal variation; the search itself runs in the
// simulated hardware. One call per search. Built with the design's top.cc and formats.h; see
// hwmovegen/sim/cxxrtl/build.py.

#include <cstdint>
#include "top.h"
#include "formats.h"
#include "cxxrtl_common.h"

using namespace cxxrtl_design;
using hwmg::bits_of;

namespace {

using request_t = typename std::decay<decltype(bits_of(std::declval<p_top &>().p_request))>::type;
using result_t = typename std::decay<decltype(bits_of(std::declval<p_top &>().p_result))>::type;
using counters_t = typename std::decay<decltype(bits_of(std::declval<p_top &>().p_counters))>::type;
static_assert(sizeof(chunk_t) == 4, "ports are copied in 32-bit chunks");

// An input port is a value<> (or a wire<> if the design registers it first): its chunks set.
template<size_t Bits> void set_chunks(cxxrtl::value<Bits> &v, const uint32_t *words) {
    for (size_t w = 0; w < cxxrtl::value<Bits>::chunks; w++) v.data[w] = words[w];
}
template<size_t Bits> void set_chunks(cxxrtl::wire<Bits> &v, const uint32_t *words) {
    for (size_t w = 0; w < cxxrtl::value<Bits>::chunks; w++) v.next.data[w] = words[w];
}
template<class T> void get_chunks(const T &port, uint32_t *words) {
    const auto &value = bits_of(port);
    for (size_t w = 0; w < std::decay<decltype(value)>::type::chunks; w++) words[w] = value.data[w];
}

// Each cycle is stepped to its settled outputs (`hierarchical`: the design keeps shared ray
// logic as modules of its own): the outputs read after a tick are the new cycle's.
struct Search : hwmg::Clocked<p_top> {
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

int hwmg_request_words() { return request_t::chunks; }
int hwmg_result_words() { return result_t::chunks; }
int hwmg_counter_words() { return counters_t::chunks; }

// One search: load the root image, write the `history` keys, start with the request's words,
// clock until done (at most `max_cycles`), then copy the result and counter words and read the
// principal variation's first `pv_length` moves (from the result, which the caller unpacks:
// here the first `pv_capacity`). Returns 0, -1 if the engine was busy, -2 if not done in time.
int hwmg_search(void *handle, const uint8_t *image, const uint32_t *request, const uint64_t *history,
                int history_count, uint64_t max_cycles, uint32_t *result, uint32_t *counters,
                uint32_t *pv, int pv_capacity) {
    Search *s = static_cast<Search *>(handle);
    auto &top = s->top;
    s->load(image);
    if (top.p_busy.get<bool>()) return -1;
    for (int i = 0; i < history_count; i++) {
        top.p_history____en.set<bool>(true);
        top.p_history____index.set<uint32_t>(i);
        top.p_history____key.set<uint64_t>(history[i]);
        s->tick();
    }
    top.p_history____en.set<bool>(false);
    set_chunks(top.p_request, request);
    top.p_start.set<bool>(true);
    s->tick();
    top.p_start.set<bool>(false);
    uint64_t cycles = 0;
    while (!top.p_done.get<bool>()) {
        if (cycles++ == max_cycles) return -2;
        s->tick();
    }
    get_chunks(top.p_result, result);
    get_chunks(top.p_counters, counters);
    s->tick();      // the engine is idle again; the PV table holds the line
    for (int i = 0; i < pv_capacity; i++) {
        top.p_pv__index.set<uint32_t>(i);
        top.step();
        pv[i] = bits_of(top.p_pv__move).get<uint32_t>();
    }
    return 0;
}

}  // extern "C"
