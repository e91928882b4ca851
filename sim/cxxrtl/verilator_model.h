// The Verilator side of driver.h: the model's class, its ports' bits, and one clock cycle.
//
// Verilator holds a port of up to 8, 16, 32 or 64 bits in an integer of that size, a wider
// one in a VlWide of 32-bit words.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>
#include "Vtop.h"

namespace hwmg {

using Top = Vtop;

template<class T, class Port> T get(const Port &port) { return static_cast<T>(port); }
template<class T, class Port> void set(Port &port, T value) { port = value; }

template<class Port> struct Words {
    static constexpr size_t count = (sizeof(Port) + 3) / 4;
};
template<size_t N> void get_words(const VlWide<N> &port, uint32_t *words) {
    for (size_t w = 0; w < N; w++) words[w] = port[w];
}
template<class Port> void get_words(const Port &port, uint32_t *words) {
    for (size_t w = 0; w < Words<Port>::count; w++) words[w] = uint32_t(uint64_t(port) >> (32 * w));
}
template<size_t N> void set_words(VlWide<N> &port, const uint32_t *words) {
    for (size_t w = 0; w < N; w++) port[w] = words[w];
}
template<class Port> void set_words(Port &port, const uint32_t *words) {
    uint64_t value = 0;
    for (size_t w = 0; w < Words<Port>::count; w++) value |= uint64_t(words[w]) << (32 * w);
    port = static_cast<Port>(value);
}

// The design is flattened: one eval() settles it, so every cycle is evaluated as CXXRTL's
// hierarchical ones are stepped (the outputs read after a tick are the new cycle's, settled)
// and `hierarchical` changes nothing.
template<class T = Top>
struct Model {
    T top;
    uint64_t clock_cycles = 0;
    bool settled = true;
    bool hierarchical = false;

    // The inputs settled with the clock low: the outputs are what the edge samples.
    void begin_cycle() {
        top.clk = 0;
        top.eval();
    }

    // The edge, and the outputs of the new cycle.
    void finish_cycle() {
        top.clk = 1;
        top.eval();
        clock_cycles++;
    }

    void tick() {
        begin_cycle();
        finish_cycle();
    }

    void settle() { top.eval(); }

    ~Model() { top.final(); }
};

}  // namespace hwmg
